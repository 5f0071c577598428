extension DenyList {
    /// The largest deny-list file read: far above any useful list (the shipped one is
    /// about 20 KiB), low enough that a wrong path (a disk image, `/dev/zero`) fails
    /// fast instead of filling memory.
    public static let maximumFileBytes = 16 << 20

    /// Parses a deny list file's contents: one PIN a line, UTF-8. Spaces, tabs and a
    /// carriage return around an entry are trimmed; empty lines and lines starting
    /// with `#` are skipped; duplicates count once. `file` names the file in errors.
    ///
    /// Throws, naming the line, when a line is not valid UTF-8.
    public init(parsing contents: [UInt8], file: String) throws(DenyListError) {
        self.init(entries: [])
        var lineNumber = 0
        var lineStart = contents.startIndex
        while lineStart < contents.endIndex {
            lineNumber += 1
            let lineEnd = contents[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? contents.endIndex
            let line = Self.trimmed(contents[lineStart..<lineEnd])
            lineStart = lineEnd == contents.endIndex ? lineEnd : lineEnd + 1
            guard let first = line.first, first != UInt8(ascii: "#") else { continue }
            guard String(validating: line, as: UTF8.self) != nil else {
                throw DenyListError(path: file, line: lineNumber, reason: "not valid UTF-8")
            }
            line.withUnsafeBytes { insert($0) }
        }
    }

    private static func trimmed(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        func isBlank(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
        }
        guard let first = line.firstIndex(where: { !isBlank($0) }),
              let last = line.lastIndex(where: { !isBlank($0) })
        else { return line[line.startIndex..<line.startIndex] }
        return line[first...last]
    }
}
