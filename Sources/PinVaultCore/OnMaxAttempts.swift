/// What happens to a credential at `LockoutPolicy.maxAttempts` consecutive failures
/// (config `lockout.on_max_attempts`).
public enum OnMaxAttempts: String, CaseIterable, Sendable {
    /// The credential stays, unusable, until an admin `Unblock`s it.
    case block
    /// The credential is deleted; the call that made the last failure answers
    /// `CredentialWiped`.
    case wipe
}
