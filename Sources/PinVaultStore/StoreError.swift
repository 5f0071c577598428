/// Failures of the storage layer. Messages name paths, SQLite codes and row identifiers,
/// never record contents beyond a key id.
public enum StoreError: Error, Equatable, Sendable {
    /// The database file could not be opened or created, or is not safe to use.
    case cannotOpen(path: String, reason: String)
    /// SQLite returned `code` (an extended result code) with `message`.
    case sqlite(code: Int32, message: String)
    /// The database was written by a newer PinVault (its schema version is given).
    case futureSchema(Int)
    /// `PRAGMA quick_check` found damage; the detail is SQLite's first finding.
    case corruptDatabase(String)
    /// A row does not decode; names its key id, or `rowid N` when the key id is unreadable.
    case corruptRecord(String)
    /// A record given to `insert` or `update` cannot be stored; names the field.
    case invalidRecord(String)
    /// No credential has that key id.
    case notFound
    /// A credential with that key id already exists.
    case duplicate
    /// The store was closed.
    case closed
    /// `read` or `write` was called from inside another `read` or `write` body.
    case reentrantAccess
    /// `pthread_mutex_lock` failed with this error number.
    case lockFailed(Int32)
    /// A reader or writer was used after its `read` or `write` call returned.
    case transactionEnded
}

extension StoreError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open vault database \(path): \(reason)"
        case .sqlite(let code, let message): "SQLite error \(code): \(message)"
        case .futureSchema(let version):
            "vault schema version \(version) is newer than this PinVault knows (\(VaultStore.currentSchemaVersion))"
        case .corruptDatabase(let detail): "vault database is damaged: \(detail)"
        case .corruptRecord(let id): "credential record \(id) does not decode"
        case .invalidRecord(let field): "credential record has an invalid \(field)"
        case .notFound: "no such credential"
        case .duplicate: "a credential with that key id already exists"
        case .closed: "the vault store is closed"
        case .reentrantAccess: "vault store used from inside its own read or write"
        case .lockFailed(let code): "vault store lock failed: error \(code)"
        case .transactionEnded: "vault reader or writer used after its transaction ended"
        }
    }
}
