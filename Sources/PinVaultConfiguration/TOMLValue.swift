/// A value of the TOML subset `TOMLReader` accepts.
public enum TOMLValue: Equatable, Sendable {
    /// A basic (`"…"`) or literal (`'…'`) string, escapes resolved.
    case string(String)
    /// A decimal integer.
    case integer(Int64)
    /// `true` or `false`.
    case boolean(Bool)
    /// An array of strings or of integers (one kind per array).
    case array([TOMLValue])

    /// The type's name with its article, for error messages: "an integer".
    public var typeDescription: String {
        switch self {
        case .string: return "a string"
        case .integer: return "an integer"
        case .boolean: return "a boolean"
        case .array: return "an array"
        }
    }
}

/// A key's value and the line the key is on.
public struct TOMLEntry: Equatable, Sendable {
    /// The value.
    public var value: TOMLValue
    /// The 1-based line of the key.
    public var line: Int

    public init(value: TOMLValue, line: Int) {
        self.value = value
        self.line = line
    }
}
