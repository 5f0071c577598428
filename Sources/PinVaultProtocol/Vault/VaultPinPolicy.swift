/// The wire form of `io.pinvault.Vault.PinPolicy`: the PIN rules and lockout settings.
public struct VaultPinPolicy: Equatable, Sendable {
    /// `onMaxAttempts`: what happens at `maxAttempts` consecutive wrong PINs.
    public enum OnMaxAttempts: String, CaseIterable, Sendable {
        /// Only an admin `Unblock` revives the credential.
        case block
        /// The credential is deleted.
        case wipe
    }

    /// Shortest PIN.
    public var minLength: Int64
    /// Longest PIN.
    public var maxLength: Int64
    /// Only ASCII digits allowed.
    public var digitsOnly: Bool
    /// Most occurrences of any one character.
    public var maxIdenticalDigits: Int64
    /// Whether wholly ascending/descending runs are allowed.
    public var allowSequences: Bool
    /// Entries on the deny list.
    public var denyListSize: Int64
    /// Consecutive failures after which throttling starts.
    public var throttleAfter: Int64
    /// Consecutive failures after which `onMaxAttempts` applies.
    public var maxAttempts: Int64
    /// Block or wipe.
    public var onMaxAttempts: OnMaxAttempts

    /// Each field as given.
    public init(
        minLength: Int64, maxLength: Int64, digitsOnly: Bool, maxIdenticalDigits: Int64,
        allowSequences: Bool, denyListSize: Int64, throttleAfter: Int64, maxAttempts: Int64,
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

    /// Decodes a `PinPolicy` object.
    public init(from object: ParameterDecoder) throws(ParameterError) {
        let count: ClosedRange<Int64> = 0...Int64.max
        minLength = try object.int("minLength", required: true, range: count) ?? 0
        maxLength = try object.int("maxLength", required: true, range: count) ?? 0
        digitsOnly = try object.bool("digitsOnly", required: true) ?? false
        maxIdenticalDigits = try object.int("maxIdenticalDigits", required: true, range: count) ?? 0
        allowSequences = try object.bool("allowSequences", required: true) ?? false
        denyListSize = try object.int("denyListSize", required: true, range: count) ?? 0
        throttleAfter = try object.int("throttleAfter", required: true, range: count) ?? 0
        maxAttempts = try object.int("maxAttempts", required: true, range: count) ?? 0
        onMaxAttempts = try object.enumeration("onMaxAttempts", required: true, as: OnMaxAttempts.self) ?? .block
    }

    /// Writes the object's fields.
    public func writeFields(_ object: inout JSONObjectWriter) {
        object.field("minLength", minLength)
        object.field("maxLength", maxLength)
        object.field("digitsOnly", digitsOnly)
        object.field("maxIdenticalDigits", maxIdenticalDigits)
        object.field("allowSequences", allowSequences)
        object.field("denyListSize", denyListSize)
        object.field("throttleAfter", throttleAfter)
        object.field("maxAttempts", maxAttempts)
        object.field("onMaxAttempts", onMaxAttempts.rawValue)
    }
}
