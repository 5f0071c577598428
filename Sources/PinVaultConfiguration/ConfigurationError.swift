/// A configuration that cannot be used: the daemon refuses to start with it.
/// Names the file, the key (`section.key`) and the reason, and the line when known.
public struct ConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The configuration file as it was given.
    public var file: String
    /// The 1-based line at fault, when known.
    public var line: Int?
    /// The key at fault as `section.key` (or a root key's bare name), when one is.
    public var key: String?
    /// What is wrong, for a person.
    public var reason: String

    /// An error about `file`.
    public init(file: String, line: Int? = nil, key: String? = nil, reason: String) {
        self.file = file
        self.line = line
        self.key = key
        self.reason = reason
    }

    /// `file:line: key: reason`, leaving out what is unknown.
    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        if let key { text += ": \(key)" }
        return text + ": " + reason
    }
}
