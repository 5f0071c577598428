/// One way a proposed PIN breaks the PIN policy (config/pinvaultd.toml `[policy]`).
///
/// The raw values are the names the Varlink interface reports. Declaration order is
/// report order: `PinPolicy.violations(of:current:)` lists its findings in this order.
public enum PinViolation: String, CaseIterable, Sendable {
    /// The PIN has no characters at all.
    case empty
    /// A character other than an ASCII digit while digits are required, or bytes that
    /// are not valid UTF-8 (under any policy).
    case notDigits
    /// Fewer characters than `minLength`.
    case tooShort
    /// More characters than `maxLength`.
    case tooLong
    /// Some one character occurs more than `maxIdenticalDigits` times.
    case tooManyIdenticalDigits
    /// The whole PIN is an ascending or descending run of digits with step 1.
    case sequential
    /// The PIN is on the deny list of common PINs.
    case denyListed
    /// The new PIN equals the current one (ChangePin).
    case sameAsCurrent
}
