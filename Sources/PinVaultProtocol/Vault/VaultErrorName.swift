/// The error names of `io.pinvault.Vault`.
public enum VaultErrorName: String, CaseIterable, Sendable {
    /// `WrongPin(remainingAttempts)`.
    case wrongPin = "WrongPin"
    /// `LockedOut(retryAfterSeconds)`.
    case lockedOut = "LockedOut"
    /// `CredentialBlocked()`.
    case credentialBlocked = "CredentialBlocked"
    /// `CredentialWiped()`.
    case credentialWiped = "CredentialWiped"
    /// `PinPolicyViolation(violations)`.
    case pinPolicyViolation = "PinPolicyViolation"
    /// `NoSuchCredential()`.
    case noSuchCredential = "NoSuchCredential"
    /// `AmbiguousCredential(keyIds)`.
    case ambiguousCredential = "AmbiguousCredential"
    /// `TooManyCredentials(limit)`.
    case tooManyCredentials = "TooManyCredentials"
    /// `UnregistrationPending(expiresAt)`.
    case unregistrationPending = "UnregistrationPending"
    /// `InvalidToken()`.
    case invalidToken = "InvalidToken"
    /// `Busy(retryAfterMilliseconds)`.
    case busy = "Busy"
    /// `InternalError()`: a store or system failure; nothing changed.
    case internalError = "InternalError"

    /// `io.pinvault.Vault.<Name>`.
    public var qualifiedName: String { VaultInterface.name + "." + rawValue }

    /// The name for a fully qualified error string; nil for other interfaces' errors.
    public init?(qualifiedName: String) {
        let prefix = VaultInterface.name + "."
        guard qualifiedName.hasPrefix(prefix) else { return nil }
        self.init(rawValue: String(qualifiedName.dropFirst(prefix.count)))
    }
}
