/// The keys of one `[section]`, or of the root before any section header.
public struct TOMLTable: Equatable, Sendable {
    /// The section name; empty for the root table.
    public let name: String
    /// The 1-based line of the `[section]` header; 0 for the root table.
    public let line: Int
    /// The keys and their values.
    public private(set) var entries: [String: TOMLEntry] = [:]
    /// The keys in file order.
    public private(set) var keys: [String] = []

    /// An empty table.
    public init(name: String, line: Int) {
        self.name = name
        self.line = line
    }

    /// The entry of `key`, if present.
    public subscript(key: String) -> TOMLEntry? { entries[key] }

    /// Adds `key`; throws when it is already there.
    public mutating func add(_ key: String, _ entry: TOMLEntry) throws(TOMLError) {
        if let existing = entries[key] {
            throw TOMLError(
                line: entry.line,
                message: "key '\(key)' is defined twice (first on line \(existing.line))"
            )
        }
        entries[key] = entry
        keys.append(key)
    }
}
