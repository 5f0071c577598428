import CSQLite

/// One compiled statement, owning its `sqlite3_stmt*`; finalized in `deinit`.
/// Values are only ever bound as parameters, never spliced into SQL text.
final class SQLiteStatement {
    private let handle: OpaquePointer
    /// Kept alive so that its `sqlite3*` outlives this statement, and for error messages.
    private let connection: SQLiteConnection

    init(handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// `SQLITE_TRANSIENT`: SQLite copies the bytes before the bind call returns.
    /// (The C macro is a cast of -1 and is not imported.)
    private static var transient: sqlite3_destructor_type {
        unsafeBitCast(-1 as Int, to: sqlite3_destructor_type.self)
    }

    /// Binds `values` to parameters 1…n; their number must match the statement's.
    func bind(_ values: [SQLiteValue]) throws(StoreError) {
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard values.count == expected else {
            throw StoreError.sqlite(
                code: SQLITE_RANGE, message: "statement takes \(expected) values, \(values.count) given")
        }
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    private func bind(_ value: SQLiteValue, at index: Int32) throws(StoreError) {
        let code: Int32
        switch value {
        case .null:
            code = sqlite3_bind_null(handle, index)
        case .integer(let number):
            code = sqlite3_bind_int64(handle, index, number)
        case .real(let number):
            code = sqlite3_bind_double(handle, index, number)
        case .text(let bytes):
            code = bytes.withUnsafeBufferPointer { buffer in
                // An empty array may have no base address; SQLite would read that as NULL.
                guard let base = buffer.baseAddress, buffer.count > 0 else {
                    return sqlite3_bind_text(handle, index, "", 0, Self.transient)
                }
                return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    sqlite3_bind_text64(handle, index, $0, UInt64(buffer.count), Self.transient, UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let bytes):
            code = bytes.withUnsafeBytes { buffer in
                guard let base = buffer.baseAddress, buffer.count > 0 else {
                    return sqlite3_bind_zeroblob(handle, index, 0)
                }
                return sqlite3_bind_blob64(handle, index, base, UInt64(buffer.count), Self.transient)
            }
        }
        guard code == SQLITE_OK else { throw connection.error(code) }
    }

    /// Advances: true when a row is ready to read, false when the statement is done.
    func step() throws(StoreError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error(code)  // extended already: opened with SQLITE_OPEN_EXRESCODE
        }
    }

    /// Columns in the current row.
    var columnCount: Int32 { sqlite3_column_count(handle) }

    /// The value of column `index` (0-based) of the current row, with its stored type.
    func value(at index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT:
            // Pointer first, then length, as the SQLite documentation requires.
            let pointer = sqlite3_column_text(handle, index)
            let count = Int(sqlite3_column_bytes(handle, index))
            guard let pointer, count > 0 else { return .text([]) }
            return .text(Array(UnsafeBufferPointer(start: pointer, count: count)))
        case SQLITE_BLOB:
            let pointer = sqlite3_column_blob(handle, index)
            let count = Int(sqlite3_column_bytes(handle, index))
            guard let pointer, count > 0 else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: pointer, count: count)))
        default:
            return .null
        }
    }
}
