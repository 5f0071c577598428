/// A TOML syntax error, or a form outside the supported subset.
public struct TOMLError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The 1-based line of the fault.
    public var line: Int
    /// What is wrong, for a person.
    public var message: String

    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }

    public var description: String { "line \(line): \(message)" }
}
