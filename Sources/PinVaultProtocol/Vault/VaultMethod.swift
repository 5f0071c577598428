/// The methods of `io.pinvault.Vault`, with the parameters each accepts.
public enum VaultMethod: String, CaseIterable, Sendable {
    /// `GetPolicy() -> (policy)`.
    case getPolicy = "GetPolicy"
    /// `CheckPin(pin) -> (valid, violations)`.
    case checkPin = "CheckPin"
    /// `Register(user, pin, label?) -> (credential)`.
    case register = "Register"
    /// `List(user?, ownerUid?) -> (credentials)`.
    case list = "List"
    /// `Authenticate(user, keyId?, pin, challenge, ownerUid?) -> (keyId, publicKey, signature, pinPolicyOutdated)`.
    case authenticate = "Authenticate"
    /// `ChangePin(user, keyId?, currentPin, newPin) -> (credential)`.
    case changePin = "ChangePin"
    /// `BeginUnregister(user, keyId?, pin?) -> (keyId, token, expiresAt)`.
    case beginUnregister = "BeginUnregister"
    /// `CommitUnregister(keyId, token) -> ()`.
    case commitUnregister = "CommitUnregister"
    /// `AbortUnregister(keyId, token) -> ()`.
    case abortUnregister = "AbortUnregister"
    /// `Wipe(user, keyId?, pin?, ownerUid?) -> (user, deletedKeyIds)`.
    case wipe = "Wipe"
    /// `Unblock(ownerUid, user, keyId) -> (credential)`, admins only.
    case unblock = "Unblock"
    /// `Reset(confirm) -> (deletedCount)`, admins only.
    case reset = "Reset"
    /// `GetStats() -> (counters)`.
    case getStats = "GetStats"

    /// `io.pinvault.Vault.<Method>`.
    public var qualifiedName: String { VaultInterface.name + "." + rawValue }

    /// Every parameter name the method declares; anything else is `InvalidParameter`.
    public var parameterNames: Set<String> {
        switch self {
        case .getPolicy, .getStats: []
        case .checkPin: ["pin"]
        case .register: ["user", "pin", "label"]
        case .list: ["user", "ownerUid"]
        case .authenticate: ["user", "keyId", "pin", "challenge", "ownerUid"]
        case .changePin: ["user", "keyId", "currentPin", "newPin"]
        case .beginUnregister: ["user", "keyId", "pin"]
        case .commitUnregister, .abortUnregister: ["keyId", "token"]
        case .wipe: ["user", "keyId", "pin", "ownerUid"]
        case .unblock: ["ownerUid", "user", "keyId"]
        case .reset: ["confirm"]
        }
    }

    /// Whether only an admin may call the method at all.
    public var isAdminOnly: Bool {
        self == .unblock || self == .reset || self == .getStats
    }
}
