import PinVaultCrypto

/// Read access to the vault inside one `VaultStore.read` (or `write`) call: every query
/// sees the same snapshot. Invalid once that call returns (`StoreError.transactionEnded`).
/// A class so that `VaultWriter` can be one with its writes added, not a copy of it.
public class VaultReader {
    let table: CredentialTable
    var certificateTable: CertificateTable { CertificateTable(scope: table.scope) }
    var passkeyTable: PasskeyTable { PasskeyTable(scope: table.scope) }

    init(table: CredentialTable) {
        self.table = table
    }

    /// The credential with that key id, nil when there is none;
    /// `StoreError.corruptRecord` when its row does not decode.
    public func credential(keyId: KeyID) throws(StoreError) -> CredentialRecord? {
        try table.credential(keyId: keyId)
    }

    /// Credentials of that owner and user (nil matches any), ordered by `createdAt` then
    /// key id. Rows that do not decode are left out; `corruptRecords()` names them.
    public func credentials(ownerUid: UInt32?, user: String?) throws(StoreError) -> [CredentialRecord] {
        try table.credentials(ownerUid: ownerUid, user: user)
    }

    /// The key id (or `rowid N`) of every row that does not decode, in row order.
    public func corruptRecords() throws(StoreError) -> [String] {
        try table.corruptRecords()
    }

    /// The rows after `rowid` (at most `limit`) that do not decode, and the last rowid
    /// read, nil at the end of the table: a scan in slices, so that checking every row
    /// never holds the store for long.
    public func corruptRecords(after rowid: Int64, limit: Int) throws(StoreError) -> (corrupt: [String], last: Int64?) {
        try table.corruptRecords(after: rowid, limit: limit)
    }

    /// Whether the vault holds no row at all (one probe, not a count).
    public func isEmpty() throws(StoreError) -> Bool {
        try table.isEmpty()
    }

    /// Rows of that owner, corrupt ones included (they still take a place in the quota).
    public func count(ownerUid: UInt32) throws(StoreError) -> Int {
        try table.count(ownerUid: ownerUid, user: nil)
    }

    /// Rows of that owner and user, corrupt ones included.
    public func count(ownerUid: UInt32, user: String) throws(StoreError) -> Int {
        try table.count(ownerUid: ownerUid, user: user)
    }

    /// Rows that read `legacy`: made before purposes existed.
    public func legacyCount() throws(StoreError) -> Int {
        try table.legacyCount()
    }

    /// The OpenSSH certificates attached to `keyId`, oldest first.
    public func certificates(keyId: KeyID) throws(StoreError) -> [[UInt8]] {
        try certificateTable.certificates(keyId: keyId)
    }

    /// The passkeys of `ownerUid`, of the relying party whose id hashes to `rpIdHash` when
    /// given, oldest first. Rows damaged from outside are left out.
    public func passkeys(ownerUid: UInt32, rpIdHash: [UInt8]? = nil) throws(StoreError) -> [PasskeyRecord] {
        try passkeyTable.passkeys(ownerUid: ownerUid, rpIdHash: rpIdHash)
    }

    /// How many passkeys `ownerUid` holds, damaged rows included.
    public func passkeyCount(ownerUid: UInt32) throws(StoreError) -> Int {
        try passkeyTable.count(ownerUid: ownerUid)
    }

    /// Every row.
    public func totalCount() throws(StoreError) -> Int {
        try table.count(ownerUid: nil, user: nil)
    }
}
