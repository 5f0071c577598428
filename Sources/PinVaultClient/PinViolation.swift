/// A policy rule a PIN breaks, by its wire name.
///
/// A struct rather than an enum, so that a rule a newer daemon adds still decodes (its
/// `description` then names it as sent).
public struct PinViolation: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The wire name, such as `"tooShort"`.
    public var rawValue: String

    /// The violation called `rawValue`.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The PIN is empty.
    public static let empty = PinViolation(rawValue: "empty")
    /// The policy allows digits only, and the PIN has other characters.
    public static let notDigits = PinViolation(rawValue: "notDigits")
    /// Shorter than the policy's `minLength`.
    public static let tooShort = PinViolation(rawValue: "tooShort")
    /// Longer than the policy's `maxLength`.
    public static let tooLong = PinViolation(rawValue: "tooLong")
    /// One character occurs more often than `maxIdenticalDigits`.
    public static let tooManyIdenticalDigits = PinViolation(rawValue: "tooManyIdenticalDigits")
    /// Wholly an ascending or descending run, such as 123456.
    public static let sequential = PinViolation(rawValue: "sequential")
    /// On the deny list of common PINs.
    public static let denyListed = PinViolation(rawValue: "denyListed")
    /// The new PIN equals the current one (`changePin`).
    public static let sameAsCurrent = PinViolation(rawValue: "sameAsCurrent")

    /// An English sentence saying what is wrong with the PIN.
    public var description: String {
        switch self {
        case .empty: "the PIN is empty"
        case .notDigits: "the PIN may contain digits only"
        case .tooShort: "the PIN is too short"
        case .tooLong: "the PIN is too long"
        case .tooManyIdenticalDigits: "the PIN repeats one digit too often"
        case .sequential: "the PIN is an ascending or descending sequence"
        case .denyListed: "the PIN is on the list of common PINs"
        case .sameAsCurrent: "the new PIN is the same as the current one"
        default: "the PIN breaks the rule \"\(rawValue)\""
        }
    }
}
