import CSQLite
import PinVaultCrypto

/// The pepper's check value (docs/FORMAT.md §9), kept in `vault_metadata` so that a
/// start under another pepper is refused instead of counting every right PIN as wrong.
extension VaultStore {
    /// What the vault says of a pepper.
    public enum PepperVerdict: Equatable, Sendable {
        /// The vault's records were sealed with this pepper, as far as its check value says.
        case matches
        /// The vault had no check value (new, or written before PinVault kept one); it
        /// records this pepper's now. `recordCount` credentials were there already.
        case recorded(recordCount: Int)
        /// The vault holds no credentials and recorded another pepper: nothing is sealed
        /// with the old one, so this one's check value replaces it.
        case replacedOnEmptyVault
        /// The vault holds credentials sealed with another pepper: none would open.
        case mismatch(recordCount: Int)
    }

    /// The name of the check value's row in `vault_metadata`.
    static let pepperCheckName = "pepper_check"

    /// Compares `pepper` with the check value the vault recorded, recording it when
    /// there is none (and replacing it on a vault without credentials), in one
    /// transaction.
    public func checkPepper(_ pepper: Pepper) throws -> PepperVerdict {
        let value = try pepper.checkValue()
        return try withConnection { connection in
            try connection.execute("BEGIN IMMEDIATE")
            do {
                let verdict = try Self.checkPepper(value, connection)
                try connection.execute("COMMIT")
                return verdict
            } catch {
                if (try? connection.isInTransaction()) == true { try? connection.execute("ROLLBACK") }
                throw error
            }
        }
    }

    /// The recorded check value; nil when there is none.
    public func pepperCheckValue() throws -> [UInt8]? {
        try withConnection { connection in try Self.recordedCheck(connection) }
    }

    private static func checkPepper(_ value: [UInt8], _ connection: SQLiteConnection) throws(StoreError) -> PepperVerdict {
        let recorded = try recordedCheck(connection)
        if let recorded, ConstantTime.equals(recorded, value) { return .matches }
        guard case .integer(let count)? = try connection.scalar("SELECT count(*) FROM credentials"),
              let records = Int(exactly: count)
        else { throw StoreError.sqlite(code: SQLITE_MISMATCH, message: "count(*) returned no integer") }
        if recorded != nil, records > 0 { return .mismatch(recordCount: records) }
        try connection.execute(
            "INSERT OR REPLACE INTO vault_metadata (name, value) VALUES (?1, ?2)",
            [.text(Array(pepperCheckName.utf8)), .blob(value)]
        )
        return recorded == nil ? .recorded(recordCount: records) : .replacedOnEmptyVault
    }

    private static func recordedCheck(_ connection: SQLiteConnection) throws(StoreError) -> [UInt8]? {
        switch try connection.scalar("SELECT value FROM vault_metadata WHERE name = ?1", [.text(Array(pepperCheckName.utf8))]) {
        case nil, .null?: return nil
        case .blob(let bytes)?: return bytes
        default: throw StoreError.corruptDatabase("vault_metadata.\(pepperCheckName) is not a blob")
        }
    }
}
