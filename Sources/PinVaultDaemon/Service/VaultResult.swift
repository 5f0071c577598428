import PinVaultCore
import PinVaultCrypto
import PinVaultStore

/// What a successful call answers, before encoding.
enum VaultResult: Sendable {
    case policy
    case checkPin(violations: [PinViolation])
    case credential(CredentialRecord)
    case credentials([CredentialRecord])
    case authenticated(keyId: KeyID, publicKey: [UInt8], signature: [UInt8], pinPolicyOutdated: Bool)
    /// The token is secret: it is written into the reply straight from secret memory.
    case unregistrationBegun(keyId: KeyID, token: SecretBytes, expiresAt: Int64)
    case empty
    case wiped(user: String, deletedKeyIds: [KeyID])
    case reset(deletedCount: Int)
    case stats
}
