/// A TOML syntax error, or a form outside the supported subset.
struct TOMLError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The 1-based line of the fault.
    var line: Int
    /// What is wrong, for a person.
    var message: String

    var description: String { "line \(line): \(message)" }
}
