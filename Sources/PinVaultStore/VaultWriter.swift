import PinVaultCrypto

/// Read-write access inside one `VaultStore.write` call, which is one `BEGIN IMMEDIATE`
/// transaction: all of the body's changes commit together or not at all.
/// Invalid once that call returns (`StoreError.transactionEnded`).
public struct VaultWriter {
    let table: CredentialTable

    /// The reading half, for code that takes a `VaultReader`.
    public var reader: VaultReader { VaultReader(table: table) }

    /// See `VaultReader.credential(keyId:)`.
    public func credential(keyId: KeyID) throws(StoreError) -> CredentialRecord? {
        try table.credential(keyId: keyId)
    }

    /// See `VaultReader.credentials(ownerUid:user:)`.
    public func credentials(ownerUid: UInt32?, user: String?) throws(StoreError) -> [CredentialRecord] {
        try table.credentials(ownerUid: ownerUid, user: user)
    }

    /// See `VaultReader.corruptRecords()`.
    public func corruptRecords() throws(StoreError) -> [String] {
        try table.corruptRecords()
    }

    /// See `VaultReader.count(ownerUid:)`.
    public func count(ownerUid: UInt32) throws(StoreError) -> Int {
        try table.count(ownerUid: ownerUid, user: nil)
    }

    /// See `VaultReader.count(ownerUid:user:)`.
    public func count(ownerUid: UInt32, user: String) throws(StoreError) -> Int {
        try table.count(ownerUid: ownerUid, user: user)
    }

    /// See `VaultReader.totalCount()`.
    public func totalCount() throws(StoreError) -> Int {
        try table.count(ownerUid: nil, user: nil)
    }

    /// Adds a credential; `StoreError.duplicate` when its key id exists,
    /// `StoreError.invalidRecord` when a field has the wrong size or range.
    public func insert(_ record: CredentialRecord) throws(StoreError) {
        try table.insert(record)
    }

    /// Rewrites every column of the row with the record's key id;
    /// `StoreError.notFound` when there is none.
    public func update(_ record: CredentialRecord) throws(StoreError) {
        try table.update(record)
    }

    /// Deletes that credential; false when there was none.
    @discardableResult
    public func delete(keyId: KeyID) throws(StoreError) -> Bool {
        try table.delete(keyId: keyId)
    }

    /// Deletes every credential of that owner and user, corrupt rows included;
    /// returns the deleted key ids, sorted.
    @discardableResult
    public func deleteAll(ownerUid: UInt32, user: String) throws(StoreError) -> [KeyID] {
        try table.deleteAll(ownerUid: ownerUid, user: user)
    }

    /// Deletes every credential; returns how many rows went.
    @discardableResult
    public func deleteEverything() throws(StoreError) -> Int {
        try table.deleteEverything()
    }
}
