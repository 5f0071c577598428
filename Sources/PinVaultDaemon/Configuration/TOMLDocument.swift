/// A parsed TOML file: the root table and the sections, in file order.
struct TOMLDocument: Equatable, Sendable {
    /// The keys before the first section header.
    var root = TOMLTable(name: "", line: 0)
    /// The sections in file order; names are unique.
    var sections: [TOMLTable] = []

    /// The section named `name`, if present.
    subscript(section name: String) -> TOMLTable? {
        sections.first { $0.name == name }
    }
}
