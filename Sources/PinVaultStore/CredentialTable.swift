import CSQLite
import PinVaultCrypto

/// The SQL of the `credentials` table, shared by `VaultReader` and `VaultWriter`.
struct CredentialTable {
    let scope: TransactionScope

    private static let select = "SELECT rowid, \(CredentialRecord.columns) FROM credentials"

    // MARK: Reading

    func credential(keyId: KeyID) throws(StoreError) -> CredentialRecord? {
        let statement = try scope.open().prepare("\(Self.select) WHERE key_id = ?1")
        try statement.bind([.text(keyId.hex)])
        guard try statement.step() else { return nil }
        return try CredentialRecord(row: statement)
    }

    /// Decodable rows matching the filters, ordered by creation time then key id.
    /// Rows that do not decode are skipped here and reported by `corruptRecords()`.
    func credentials(ownerUid: UInt32?, user: String?) throws(StoreError) -> [CredentialRecord] {
        let (condition, values) = Self.filter(ownerUid: ownerUid, user: user)
        let statement = try scope.open().prepare("\(Self.select)\(condition) ORDER BY created_at, key_id")
        try statement.bind(values)
        var records: [CredentialRecord] = []
        while try statement.step() {
            if let record = try? CredentialRecord(row: statement) {
                records.append(record)
            }
        }
        return records
    }

    /// The identifier (key id, or `rowid N`) of every row that does not decode.
    func corruptRecords() throws(StoreError) -> [String] {
        let statement = try scope.open().prepare("\(Self.select) ORDER BY rowid")
        var identifiers: [String] = []
        while try statement.step() {
            do throws(StoreError) {
                _ = try CredentialRecord(row: statement)
            } catch {
                if case .corruptRecord(let identifier) = error { identifiers.append(identifier) } else { throw error }
            }
        }
        return identifiers
    }

    /// The identifiers of the rows after `rowid` (at most `limit` rows) that do not
    /// decode, and the last rowid read (nil when there was none left).
    func corruptRecords(after rowid: Int64, limit: Int) throws(StoreError) -> (corrupt: [String], last: Int64?) {
        let statement = try scope.open().prepare("\(Self.select) WHERE rowid > ?1 ORDER BY rowid LIMIT ?2")
        try statement.bind([.integer(rowid), .integer(Int64(limit))])
        var identifiers: [String] = []
        var last: Int64?
        while try statement.step() {
            if case .integer(let current) = statement.value(at: 0) { last = current }
            do throws(StoreError) {
                _ = try CredentialRecord(row: statement)
            } catch {
                if case .corruptRecord(let identifier) = error { identifiers.append(identifier) } else { throw error }
            }
        }
        return (identifiers, last)
    }

    /// Whether the table holds any row: one index probe, however many there are.
    func isEmpty() throws(StoreError) -> Bool {
        guard case .integer(let found)? = try scope.open().scalar("SELECT EXISTS (SELECT 1 FROM credentials)") else {
            throw StoreError.sqlite(code: SQLITE_MISMATCH, message: "EXISTS returned no integer")
        }
        return found == 0
    }

    func count(ownerUid: UInt32?, user: String?) throws(StoreError) -> Int {
        let (condition, values) = Self.filter(ownerUid: ownerUid, user: user)
        let value = try scope.open().scalar("SELECT count(*) FROM credentials\(condition)", values)
        guard case .integer(let count)? = value, let result = Int(exactly: count) else {
            throw StoreError.sqlite(code: SQLITE_MISMATCH, message: "count(*) returned no integer")
        }
        return result
    }

    /// Rows made before purposes existed, through the partial index `credentials_legacy`:
    /// the cost grows with their number, not with the vault's.
    func legacyCount() throws(StoreError) -> Int {
        let value = try scope.open().scalar("SELECT count(*) FROM credentials WHERE purpose = 'legacy'")
        guard case .integer(let count)? = value, let result = Int(exactly: count) else {
            throw StoreError.sqlite(code: SQLITE_MISMATCH, message: "count(*) returned no integer")
        }
        return result
    }

    /// A WHERE clause (fixed SQL, values bound) for the filters given; nil matches any.
    /// One clause per combination, so that SQLite can use the (owner_uid, user) index.
    private static func filter(ownerUid: UInt32?, user: String?) -> (String, [SQLiteValue]) {
        switch (ownerUid, user) {
        case (nil, nil): ("", [])
        case (let uid?, nil): (" WHERE owner_uid = ?1", [.integer(Int64(uid))])
        case (nil, let user?): (" WHERE user = ?1", [.text(user)])
        case (let uid?, let user?): (" WHERE owner_uid = ?1 AND user = ?2", [.integer(Int64(uid)), .text(user)])
        }
    }

    // MARK: Writing

    func insert(_ record: CredentialRecord) throws(StoreError) {
        let values = try record.columnValues()
        do throws(StoreError) {
            try scope.open().execute(Self.insertSQL, values)
        } catch {
            if case .sqlite(let code, _) = error, code == Self.primaryKeyViolation { throw StoreError.duplicate }
            throw error
        }
    }

    func update(_ record: CredentialRecord) throws(StoreError) {
        let values = try record.columnValues()
        let connection = try scope.open()
        try connection.execute(Self.updateSQL, values)
        guard try connection.changes() == 1 else { throw StoreError.notFound }
    }

    func delete(keyId: KeyID) throws(StoreError) -> Bool {
        let connection = try scope.open()
        try connection.execute("DELETE FROM credentials WHERE key_id = ?1", [.text(keyId.hex)])
        return try connection.changes() > 0
    }

    /// Deletes every row of that owner and user, decodable or not; returns the key ids
    /// (sorted) of the rows whose key id was readable.
    func deleteAll(ownerUid: UInt32, user: String) throws(StoreError) -> [KeyID] {
        let statement = try scope.open().prepare(
            "DELETE FROM credentials WHERE owner_uid = ?1 AND user = ?2 RETURNING key_id")
        try statement.bind([.integer(Int64(ownerUid)), .text(user)])
        var deleted: [KeyID] = []
        while try statement.step() {
            if case .text(let bytes) = statement.value(at: 0), let keyId = KeyID(hex: String(decoding: bytes, as: UTF8.self)) {
                deleted.append(keyId)
            }
        }
        return deleted.sorted()
    }

    func deleteEverything() throws(StoreError) -> Int {
        let connection = try scope.open()
        try connection.execute("DELETE FROM credentials")
        return try connection.changes()
    }

    private static let insertSQL: String = {
        let placeholders = (1...CredentialRecord.columnCount).map { "?\($0)" }.joined(separator: ", ")
        return "INSERT INTO credentials (\(CredentialRecord.columns)) VALUES (\(placeholders))"
    }()

    /// Column i of `columns` gets ?(i+1); key_id (?1) selects the row and is rewritten to itself.
    private static let updateSQL: String = {
        let assignments = CredentialRecord.columns
            .split(separator: ",")
            .enumerated()
            .map { "\($0.element.trimmingSpaces) = ?\($0.offset + 1)" }
            .joined(separator: ", ")
        return "UPDATE credentials SET \(assignments) WHERE key_id = ?1"
    }()

    /// `SQLITE_CONSTRAINT_PRIMARYKEY` = `SQLITE_CONSTRAINT | (6 << 8)` (the macro is not imported).
    private static let primaryKeyViolation: Int32 = SQLITE_CONSTRAINT | (6 << 8)
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        let start = firstIndex { !$0.isWhitespace } ?? endIndex
        let end = lastIndex { !$0.isWhitespace }.map(index(after:)) ?? start
        return self[start..<end]
    }
}
