import PinVaultCore
import PinVaultCrypto
import PinVaultStore

/// What a successful request answers: plain values a front door encodes as they are.
public enum VaultResult: Sendable {
    case policy(PinPolicy, LockoutPolicy)
    case checkPin(violations: [PinViolation])
    case credential(CredentialView)
    case credentials([CredentialView])
    /// `failedAttemptsCleared`, here and below: the wrong PINs this call's right PIN
    /// cleared (`VaultEngine.withPin`); 0 when no PIN was checked.
    case authenticated(
        keyId: KeyID, publicKey: [UInt8], signature: [UInt8], pinPolicyOutdated: Bool, failedAttemptsCleared: Int
    )
    /// ChangePin: the credential under its new PIN.
    case pinChanged(CredentialView, failedAttemptsCleared: Int)
    /// The token is secret: a door writes it into its reply straight from secret memory.
    case unregistrationBegun(keyId: KeyID, token: SecretBytes, expiresAt: Int64, failedAttemptsCleared: Int)
    case empty
    case wiped(user: String, deletedKeyIds: [KeyID], failedAttemptsCleared: Int)
    case reset(deletedCount: Int)
    case stats(EngineStats.Snapshot)
    /// `unlockedUntil` in Unix seconds.
    case unlocked(keyId: KeyID, unlockedUntil: Int64, failedAttemptsCleared: Int)
    case locked([KeyID])
    /// A signature in its algorithm's wire form (`KeyAlgorithm`).
    case signature([UInt8])
    case unlockedKeys([UnlockedKeyView])
    /// The passkey door's answers (`VaultEngine+SecurityKey`); no Varlink method asks for
    /// the first four. The security key's remaining PIN attempts.
    case securityKeyRetries(remaining: Int)
    /// A pinUvAuthToken was made for the channel.
    case securityKeyToken(failedAttemptsCleared: Int)
    case passkeyMade(Passkey.Made)
    case passkeyAssertions([Passkey.Assertion])
    /// The caller's passkeys, oldest first.
    case passkeys([PasskeyRecord])
}
