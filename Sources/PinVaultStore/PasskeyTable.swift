import CSQLite
import PinVaultCrypto

/// The SQL of `passkeys` (schema v7): the discoverable credentials of each
/// authenticator credential, oldest first.
struct PasskeyTable {
    let scope: TransactionScope

    private static let columns = """
        credential_id, authenticator_key_id, owner_uid, rp_id, rp_id_hash, user_handle, user_name, display_name, \
        algorithm, public_key, created_at
        """

    /// The owner's passkeys, of one relying party (by its id's hash) when given.
    func passkeys(ownerUid: UInt32, rpIdHash: [UInt8]?) throws(StoreError) -> [PasskeyRecord] {
        let condition = rpIdHash == nil ? "" : " AND rp_id_hash = ?2"
        let statement = try scope.open().prepare(
            "SELECT \(Self.columns) FROM passkeys WHERE owner_uid = ?1\(condition) ORDER BY created_at, rowid")
        try statement.bind([.integer(Int64(ownerUid))] + (rpIdHash.map { [.blob($0)] } ?? []))
        var records: [PasskeyRecord] = []
        while try statement.step() {
            if let record = Self.record(statement) { records.append(record) }
        }
        return records
    }

    func count(ownerUid: UInt32) throws(StoreError) -> Int {
        let statement = try scope.open().prepare("SELECT count(*) FROM passkeys WHERE owner_uid = ?1")
        try statement.bind([.integer(Int64(ownerUid))])
        guard try statement.step(), case .integer(let count) = statement.value(at: 0) else { return 0 }
        return Int(count)
    }

    /// Stores `record`, replacing the passkey its authenticator already holds for the
    /// same relying party and user handle (WebAuthn: one discoverable credential per
    /// account of a relying party on an authenticator).
    func insert(_ record: PasskeyRecord) throws(StoreError) {
        let connection = try scope.open()
        try connection.execute(
            "DELETE FROM passkeys WHERE authenticator_key_id = ?1 AND rp_id_hash = ?2 AND user_handle = ?3",
            [.text(record.authenticatorKeyId.hex), .blob(record.rpIdHash), .blob(record.userHandle)])
        try connection.execute(
            "INSERT INTO passkeys (\(Self.columns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            [
                .blob(record.credentialId), .text(record.authenticatorKeyId.hex), .integer(Int64(record.ownerUid)),
                .text(record.rpId), .blob(record.rpIdHash), .blob(record.userHandle), .text(record.userName),
                .text(record.displayName), .text(record.algorithm.name), .blob(record.publicKey), .integer(record.createdAt),
            ])
    }

    /// Deletes the owner's passkey `credentialId`; false when there was none.
    func delete(credentialId: [UInt8], ownerUid: UInt32) throws(StoreError) -> Bool {
        let connection = try scope.open()
        try connection.execute(
            "DELETE FROM passkeys WHERE credential_id = ?1 AND owner_uid = ?2", [.blob(credentialId), .integer(Int64(ownerUid))])
        return try connection.changes() > 0
    }

    /// A row as a record; nil for one damaged from outside (an unknown algorithm, a key
    /// of the wrong shape, text that is not UTF-8), which is then not offered.
    private static func record(_ statement: SQLiteStatement) -> PasskeyRecord? {
        func blob(_ index: Int32) -> [UInt8]? {
            if case .blob(let bytes) = statement.value(at: index) { return bytes }
            return nil
        }
        func text(_ index: Int32) -> String? {
            if case .text(let bytes) = statement.value(at: index) { return String(validating: bytes, as: UTF8.self) }
            return nil
        }
        func integer(_ index: Int32) -> Int64? {
            if case .integer(let value) = statement.value(at: index) { return value }
            return nil
        }
        guard let credentialId = blob(0), let keyId = text(1).flatMap({ KeyID(hex: $0) }),
              let owner = integer(2).flatMap({ UInt32(exactly: $0) }), let rpId = text(3), let rpIdHash = blob(4),
              let userHandle = blob(5), let algorithm = text(8).flatMap({ KeyAlgorithm(rawValue: $0) }),
              let publicKey = blob(9), algorithm.isWellFormed(publicKey: publicKey), let createdAt = integer(10)
        else { return nil }
        return PasskeyRecord(
            credentialId: credentialId, authenticatorKeyId: keyId, ownerUid: owner, rpId: rpId, rpIdHash: rpIdHash,
            userHandle: userHandle, userName: text(6), displayName: text(7), algorithm: algorithm, publicKey: publicKey,
            createdAt: createdAt)
    }
}
