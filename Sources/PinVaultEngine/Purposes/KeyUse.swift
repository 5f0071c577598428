import PinVaultCrypto
import PinVaultStore

/// One use of a key that a PIN request asks for: the access, and the bytes it will sign
/// (nil for Unlock). `withPin` checks it when it admits the credential, before anything
/// is counted.
struct KeyUse: Sendable {
    let access: KeyAccess
    let message: [UInt8]?

    /// `KeyAccess.check` for `record`'s purpose and key.
    func check(_ record: CredentialRecord) throws(VaultError) {
        try access.check(record.purpose, message: message, algorithm: record.algorithm, publicKey: record.publicKey)
    }
}
