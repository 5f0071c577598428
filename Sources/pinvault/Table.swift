/// Rows of text in left-aligned columns, two spaces apart, as `ls -l` and `ps` print
/// them; an optional header row in capitals.
struct Table {
    /// The header row, or nil for a plain `name  value` list.
    var headers: [String]?
    /// The rows, each as many cells as the header.
    var rows: [[String]]

    /// The rendered lines, each ending in a newline, with no trailing spaces. Every cell
    /// is escaped for the terminal first (`TerminalText`), and measured as escaped.
    var text: String {
        let lines = ((headers.map { [$0] } ?? []) + rows).map { $0.map(TerminalText.escaped) }
        let columns = lines.map(\.count).max() ?? 0
        let widths = (0..<columns).map { column in
            lines.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0
        }
        return lines.map { cells in
            cells.enumerated().map { column, cell in
                column == cells.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }.joined(separator: "  ") + "\n"
        }.joined()
    }
}
