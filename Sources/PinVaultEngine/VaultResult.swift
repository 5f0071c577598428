import PinVaultCore
import PinVaultCrypto

/// What a successful request answers: plain values a front door encodes as they are.
public enum VaultResult: Sendable {
    case policy(PinPolicy, LockoutPolicy)
    case checkPin(violations: [PinViolation])
    case credential(CredentialView)
    case credentials([CredentialView])
    case authenticated(keyId: KeyID, publicKey: [UInt8], signature: [UInt8], pinPolicyOutdated: Bool)
    /// The token is secret: a door writes it into its reply straight from secret memory.
    case unregistrationBegun(keyId: KeyID, token: SecretBytes, expiresAt: Int64)
    case empty
    case wiped(user: String, deletedKeyIds: [KeyID])
    case reset(deletedCount: Int)
    case stats(EngineStats.Snapshot)
    /// `unlockedUntil` in Unix seconds; `failedAttemptsCleared`: the wrong PINs counted
    /// before this right one, which it cleared (`VaultEngine.failedAttemptsCleared(by:)`).
    case unlocked(keyId: KeyID, unlockedUntil: Int64, failedAttemptsCleared: Int)
    case locked([KeyID])
    /// A detached 64-byte Ed25519 signature.
    case signature([UInt8])
    case unlockedKeys([UnlockedKeyView])
}
