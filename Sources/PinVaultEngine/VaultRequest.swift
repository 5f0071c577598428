import PinVaultCrypto

/// One request to the vault, decoded by a front door. Secrets arrive as `SecretBytes`,
/// decoded straight from the peer's message; they are released (and so zeroed) with
/// the request.
public enum VaultRequest: Sendable {
    case getPolicy
    case checkPin(pin: SecretBytes)
    case register(user: String, pin: SecretBytes, label: String?)
    case list(user: String?, ownerUid: UInt32?)
    case authenticate(user: String, keyId: KeyID?, pin: SecretBytes, challenge: [UInt8], ownerUid: UInt32?)
    case changePin(user: String, keyId: KeyID?, currentPin: SecretBytes, newPin: SecretBytes)
    case beginUnregister(user: String, keyId: KeyID?, pin: SecretBytes?)
    case commitUnregister(keyId: KeyID, token: SecretBytes)
    case abortUnregister(keyId: KeyID, token: SecretBytes)
    case wipe(user: String, keyId: KeyID?, pin: SecretBytes?, ownerUid: UInt32?)
    case unblock(ownerUid: UInt32, user: String, keyId: KeyID)
    case reset
    case getStats
}
