/// A parsed TOML file: the root table and the sections, in file order.
public struct TOMLDocument: Equatable, Sendable {
    /// The keys before the first section header.
    public var root = TOMLTable(name: "", line: 0)
    /// The sections in file order; names are unique.
    public var sections: [TOMLTable] = []

    /// The section named `name`, if present.
    public subscript(section name: String) -> TOMLTable? {
        sections.first { $0.name == name }
    }
}
