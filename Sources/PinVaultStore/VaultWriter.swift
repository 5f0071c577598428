import PinVaultCrypto

/// Read-write access inside one `VaultStore.write` call, which is one `BEGIN IMMEDIATE`
/// transaction: all of the body's changes commit together or not at all.
/// Invalid once that call returns (`StoreError.transactionEnded`).
public final class VaultWriter: VaultReader {
    /// The reading half, for code that takes a `VaultReader`.
    public var reader: VaultReader { self }

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

    /// Attaches an OpenSSH certificate to `keyId` at `time`; false when it was attached
    /// already. (Its certificates go with a credential that is deleted.)
    @discardableResult
    public func addCertificate(_ certificate: [UInt8], keyId: KeyID, at time: Int64) throws(StoreError) -> Bool {
        try certificateTable.add(certificate, keyId: keyId, at: time)
    }

    /// Detaches a certificate from `keyId`; false when it was not attached.
    @discardableResult
    public func removeCertificate(_ certificate: [UInt8], keyId: KeyID) throws(StoreError) -> Bool {
        try certificateTable.remove(certificate, keyId: keyId)
    }

    /// Stores a passkey, in place of the one its authenticator holds for the same relying
    /// party and user handle. (Passkeys go with their authenticator credential.)
    public func insertPasskey(_ record: PasskeyRecord) throws(StoreError) {
        try passkeyTable.insert(record)
    }

    /// Deletes the owner's passkey `credentialId`; false when there was none.
    @discardableResult
    public func deletePasskey(credentialId: [UInt8], ownerUid: UInt32) throws(StoreError) -> Bool {
        try passkeyTable.delete(credentialId: credentialId, ownerUid: ownerUid)
    }

    /// Deletes every credential; returns how many rows went.
    @discardableResult
    public func deleteEverything() throws(StoreError) -> Int {
        try table.deleteEverything()
    }
}
