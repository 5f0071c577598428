/// A deny-list file that could not be read. Names the file and the reason; the
/// entries are public data, but no entry is quoted all the same.
public struct DenyListError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file as it was given.
    public var path: String
    /// The 1-based line at fault, when the fault is in one line.
    public var line: Int?
    /// What went wrong, for a person.
    public var reason: String

    /// An error about `path` (and `line`, when known).
    public init(path: String, line: Int? = nil, reason: String) {
        self.path = path
        self.line = line
        self.reason = reason
    }

    /// `path:line: reason`, or `path: reason`.
    public var description: String {
        if let line { return "\(path):\(line): \(reason)" }
        return "\(path): \(reason)"
    }
}
