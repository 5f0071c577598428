import CSQLite

/// One SQLite connection, owning its `sqlite3*`.
///
/// Opened `SQLITE_OPEN_NOMUTEX`: the connection does no locking of its own, so exactly one
/// thread may use it at a time. `VaultStore` guarantees that with its lock.
final class SQLiteConnection {
    private var handle: OpaquePointer?

    /// Opens an existing file read-write. Never creates it and never follows a symlink:
    /// `DatabaseFile` made and checked the file first.
    init(path: String) throws(StoreError) {
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW
            | SQLITE_OPEN_EXRESCODE | SQLITE_OPEN_PRIVATECACHE
        var opened: OpaquePointer?
        let code = sqlite3_open_v2(path, &opened, flags, nil)
        guard code == SQLITE_OK, let opened else {
            let reason = opened.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(opened)  // a handle is returned even on failure; nil is a no-op
            throw StoreError.cannotOpen(path: path, reason: reason)
        }
        handle = opened
    }

    deinit {
        close()
    }

    /// Closes the connection; later calls fail with `StoreError.closed`. Statements still
    /// alive keep the connection a zombie until they are finalized (`sqlite3_close_v2`).
    func close() {
        if let handle {
            sqlite3_close_v2(handle)
            self.handle = nil
        }
    }

    /// The open handle, or `StoreError.closed`.
    func open() throws(StoreError) -> OpaquePointer {
        guard let handle else { throw StoreError.closed }
        return handle
    }

    /// Compiles exactly one statement; trailing SQL after it is an error, so that a
    /// statement can never smuggle a second one in.
    func prepare(_ sql: String) throws(StoreError) -> SQLiteStatement {
        let db = try open()
        var statement: OpaquePointer?
        var trailing = false
        let code = sql.withCString { text -> Int32 in
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v2(db, text, -1, &statement, &tail)
            if let tail, !Self.isBlank(tail) { trailing = true }
            return code
        }
        guard code == SQLITE_OK else {
            sqlite3_finalize(statement)
            throw error(code)
        }
        guard let statement else {
            throw StoreError.sqlite(code: SQLITE_MISUSE, message: "empty SQL statement")
        }
        guard !trailing else {
            sqlite3_finalize(statement)
            throw StoreError.sqlite(code: SQLITE_MISUSE, message: "more than one SQL statement")
        }
        return SQLiteStatement(handle: statement, connection: self)
    }

    /// Runs one statement with values bound positionally, discarding any rows.
    func execute(_ sql: String, _ values: [SQLiteValue] = []) throws(StoreError) {
        let statement = try prepare(sql)
        try statement.bind(values)
        while try statement.step() {}
    }

    /// Runs one statement and returns the first column of its first row, or nil when
    /// it returns no row.
    func scalar(_ sql: String, _ values: [SQLiteValue] = []) throws(StoreError) -> SQLiteValue? {
        let statement = try prepare(sql)
        try statement.bind(values)
        return try statement.step() ? statement.value(at: 0) : nil
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    func changes() throws(StoreError) -> Int {
        Int(sqlite3_changes64(try open()))
    }

    /// True while a transaction is open (SQLite may roll one back by itself on some errors).
    func isInTransaction() throws(StoreError) -> Bool {
        sqlite3_get_autocommit(try open()) == 0
    }

    /// Sets how long a statement waits for another connection's lock before `SQLITE_BUSY`.
    func setBusyTimeout(milliseconds: Int32) throws(StoreError) {
        let code = sqlite3_busy_timeout(try open(), milliseconds)
        guard code == SQLITE_OK else { throw error(code) }
    }

    /// The typed error for `code`, with the connection's current message.
    func error(_ code: Int32) -> StoreError {
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
        return StoreError.sqlite(code: code, message: message)
    }

    private static func isBlank(_ text: UnsafePointer<CChar>) -> Bool {
        var cursor = text
        while cursor.pointee != 0 {
            switch UInt8(bitPattern: cursor.pointee) {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: ";"):
                cursor += 1
            default:
                return false
            }
        }
        return true
    }
}
