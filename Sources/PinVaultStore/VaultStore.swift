import Glibc
import PinVaultSystem

/// The vault database: one SQLite file in WAL mode, `synchronous=FULL`,
/// `secure_delete=ON`, with a versioned schema.
///
/// Thread-safe: one connection, serialised by an internal lock, so every `read` and
/// `write` runs alone. Calling `read` or `write` from inside a body fails with
/// `StoreError.reentrantAccess`. Other processes may open the same file; SQLite's file
/// locks and a busy timeout arbitrate.
public final class VaultStore: @unchecked Sendable {
    /// The schema version this code writes and the newest it opens.
    public static let currentSchemaVersion: Int = Schema.latestVersion

    /// How long a statement waits for another process's lock before failing busy.
    static let busyTimeoutMilliseconds: Int32 = 5000

    /// The database file.
    public let path: String
    private let lock: CheckedLock
    /// Guarded by `lock`; nil once closed.
    private var connection: SQLiteConnection?
    /// Whether the open ran `PRAGMA quick_check`: only after an unclean stop.
    public let checkedIntegrity: Bool

    /// Opens or creates the database file (0600, never through a symlink), sets the
    /// pragmas, checks integrity with `PRAGMA quick_check` when the last writer did not
    /// stop cleanly, then migrates to `currentSchemaVersion`, one transaction per step, and
    /// adds the purposes this code knows to the `purposes` table. Refuses a newer schema.
    ///
    /// The open reads no row, so it costs the same for ten credentials as for a
    /// hundred thousand. `quick_check` reads the whole file, and runs only when it can
    /// find something: a clean close checkpoints the write-ahead log and deletes it, so
    /// a WAL file with frames in it means a crash, a power cut or another process
    /// still writing — then the check runs before anything is served.
    public init(path: String) throws(StoreError) {
        self.path = path
        do {
            lock = try CheckedLock()
        } catch {
            throw StoreError.cannotOpen(path: path, reason: error.description)
        }
        try DatabaseFile.prepare(path: path)
        checkedIntegrity = Self.writeAheadLogHasFrames(path: path)
        let connection = try SQLiteConnection(path: path)
        do throws(StoreError) {
            try Self.configure(connection, path: path)
            if checkedIntegrity { try Self.checkIntegrity(connection) }
            try Schema.migrate(connection)
            try Schema.addPurposes(connection)
        } catch {
            connection.close()
            throw error
        }
        self.connection = connection
    }

    deinit {
        connection?.close()
    }

    /// Runs `body` in one read transaction (a consistent snapshot) under the lock.
    /// Rethrows `body`'s error unchanged.
    public func read<T>(_ body: (VaultReader) throws -> T) throws -> T {
        try transaction(begin: "BEGIN DEFERRED") { scope in
            try body(VaultReader(table: CredentialTable(scope: scope)))
        }
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction under the lock: COMMIT when it
    /// returns, ROLLBACK when it throws (its error is rethrown unchanged).
    public func write<T>(_ body: (VaultWriter) throws -> T) throws -> T {
        try transaction(begin: "BEGIN IMMEDIATE") { scope in
            try body(VaultWriter(table: CredentialTable(scope: scope)))
        }
    }

    /// Closes the database (checkpointing the WAL when this is the last connection).
    /// Waits for a running `read` or `write`; later ones fail with `StoreError.closed`.
    public func close() {
        _ = try? withLock {
            connection?.close()
            connection = nil
        }
    }

    /// Runs `body` with the raw connection under the lock, outside any transaction.
    /// For tests and diagnostics (pragma read-back, checkpoints).
    func withConnection<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try withLock {
            guard let connection else { throw StoreError.closed }
            return try body(connection)
        }
    }

    /// Runs `body` holding the store's lock; a `read` or `write` nested in another on
    /// the same thread is `StoreError.reentrantAccess` instead of a deadlock.
    private func withLock<T>(_ body: () throws -> T) throws -> T {
        try lock.withLock(body) { code in
            code == EDEADLK ? StoreError.reentrantAccess : StoreError.lockFailed(code)
        }
    }

    private func transaction<T>(begin: String, _ body: (TransactionScope) throws -> T) throws -> T {
        try withLock {
            guard let connection else { throw StoreError.closed }
            try connection.execute(begin)
            let scope = TransactionScope(connection: connection)
            defer { scope.end() }
            let result: T
            do {
                result = try body(scope)
            } catch {
                Self.rollback(connection)
                throw error
            }
            do {
                try connection.execute("COMMIT")
            } catch {
                Self.rollback(connection)
                throw error
            }
            return result
        }
    }

    /// Rolls back if a transaction is still open (SQLite ends one by itself after some
    /// errors). A failed ROLLBACK leaves nothing to do: SQLite then rolls back on close.
    private static func rollback(_ connection: SQLiteConnection) {
        if (try? connection.isInTransaction()) == true {
            try? connection.execute("ROLLBACK")
        }
    }

    private static func configure(_ connection: SQLiteConnection, path: String) throws(StoreError) {
        try connection.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
        guard case .text(let mode)? = try connection.scalar("PRAGMA journal_mode = WAL"),
            String(decoding: mode, as: UTF8.self) == "wal"
        else { throw StoreError.cannotOpen(path: path, reason: "WAL journal mode is not available") }
        try connection.execute("PRAGMA synchronous = FULL")
        try connection.execute("PRAGMA secure_delete = ON")
        try connection.execute("PRAGMA foreign_keys = ON")
        // Schema-defined functions and views cannot run with this connection's privileges.
        try connection.execute("PRAGMA trusted_schema = OFF")
    }

    /// Whether `<path>-wal` exists with more than its header: frames a clean close
    /// would have checkpointed.
    static func writeAheadLogHasFrames(path: String) -> Bool {
        // A WAL file starts with a 32-byte header; each frame adds a page and 24 bytes.
        guard let status = try? FileStatus.lstat(path + "-wal") else { return false }
        return status.size > 32
    }

    private static func checkIntegrity(_ connection: SQLiteConnection) throws(StoreError) {
        let statement = try connection.prepare("PRAGMA quick_check(1)")
        guard try statement.step() else { throw StoreError.corruptDatabase("quick_check returned nothing") }
        guard case .text(let bytes) = statement.value(at: 0) else {
            throw StoreError.corruptDatabase("quick_check returned no text")
        }
        let verdict = String(decoding: bytes, as: UTF8.self)
        guard verdict == "ok" else { throw StoreError.corruptDatabase(verdict) }
    }
}
