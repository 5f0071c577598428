import CSQLite
import PinVaultCrypto

/// The SQL of `ssh_certificates` (schema v4): certificate blobs by credential, in the
/// order they were added.
struct CertificateTable {
    let scope: TransactionScope

    func certificates(keyId: KeyID) throws(StoreError) -> [[UInt8]] {
        let statement = try scope.open().prepare(
            "SELECT certificate FROM ssh_certificates WHERE key_id = ?1 ORDER BY added_at, rowid")
        try statement.bind([.text(keyId.hex)])
        var blobs: [[UInt8]] = []
        while try statement.step() {
            if case .blob(let bytes) = statement.value(at: 0) { blobs.append(bytes) }
        }
        return blobs
    }

    /// Adds `certificate` to `keyId`'s; false when it is there already. (Only that
    /// conflict is passed over: `INSERT OR IGNORE` would pass over a failed CHECK too.)
    func add(_ certificate: [UInt8], keyId: KeyID, at time: Int64) throws(StoreError) -> Bool {
        let connection = try scope.open()
        try connection.execute(
            """
            INSERT INTO ssh_certificates (key_id, certificate, added_at) VALUES (?1, ?2, ?3)
            ON CONFLICT (key_id, certificate) DO NOTHING
            """,
            [.text(keyId.hex), .blob(certificate), .integer(time)])
        return try connection.changes() > 0
    }

    /// Removes `certificate` from `keyId`'s; false when it was not there.
    func remove(_ certificate: [UInt8], keyId: KeyID) throws(StoreError) -> Bool {
        let connection = try scope.open()
        try connection.execute(
            "DELETE FROM ssh_certificates WHERE key_id = ?1 AND certificate = ?2", [.text(keyId.hex), .blob(certificate)])
        return try connection.changes() > 0
    }
}
