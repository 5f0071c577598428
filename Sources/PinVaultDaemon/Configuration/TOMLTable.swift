/// The keys of one `[section]`, or of the root before any section header.
struct TOMLTable: Equatable, Sendable {
    /// The section name; empty for the root table.
    let name: String
    /// The 1-based line of the `[section]` header; 0 for the root table.
    let line: Int
    /// The keys and their values.
    private(set) var entries: [String: TOMLEntry] = [:]
    /// The keys in file order.
    private(set) var keys: [String] = []

    /// An empty table.
    init(name: String, line: Int) {
        self.name = name
        self.line = line
    }

    /// The entry of `key`, if present.
    subscript(key: String) -> TOMLEntry? { entries[key] }

    /// Adds `key`; throws when it is already there.
    mutating func add(_ key: String, _ entry: TOMLEntry) throws(TOMLError) {
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
