/// The PIN rules and lockout settings the daemon enforces.
public struct PinPolicy: Equatable, Sendable {
    /// What happens at `maxAttempts` consecutive wrong PINs.
    public enum OnMaxAttempts: String, Sendable {
        /// The credential is blocked until an admin unblocks it.
        case block
        /// The credential is deleted.
        case wipe
    }

    /// Shortest PIN accepted.
    public var minLength: Int
    /// Longest PIN accepted.
    public var maxLength: Int
    /// Whether only ASCII digits are allowed.
    public var digitsOnly: Bool
    /// Most occurrences of any one character.
    public var maxIdenticalDigits: Int
    /// Whether a PIN that is wholly an ascending or descending run is allowed.
    public var allowSequences: Bool
    /// Number of PINs on the deny list.
    public var denyListSize: Int
    /// Consecutive wrong PINs after which a credential is throttled.
    public var throttleAfter: Int
    /// Consecutive wrong PINs after which `onMaxAttempts` applies.
    public var maxAttempts: Int
    /// Block or wipe at `maxAttempts`.
    public var onMaxAttempts: OnMaxAttempts

    /// Each field as given.
    public init(
        minLength: Int, maxLength: Int, digitsOnly: Bool, maxIdenticalDigits: Int,
        allowSequences: Bool, denyListSize: Int, throttleAfter: Int, maxAttempts: Int,
        onMaxAttempts: OnMaxAttempts
    ) {
        self.minLength = minLength
        self.maxLength = maxLength
        self.digitsOnly = digitsOnly
        self.maxIdenticalDigits = maxIdenticalDigits
        self.allowSequences = allowSequences
        self.denyListSize = denyListSize
        self.throttleAfter = throttleAfter
        self.maxAttempts = maxAttempts
        self.onMaxAttempts = onMaxAttempts
    }
}
