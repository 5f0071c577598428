import Glibc

extension DenyList {
    /// The largest deny-list file read: far above any useful list (the shipped one is
    /// about 20 KiB), low enough that a wrong path (a disk image, `/dev/zero`) fails
    /// fast instead of filling memory.
    public static let maximumFileBytes = 16 << 20

    /// Reads a deny list from a text file: one PIN a line, UTF-8. Spaces, tabs and a
    /// carriage return around an entry are trimmed; empty lines and lines starting
    /// with `#` are skipped; duplicates count once.
    ///
    /// Throws when the file cannot be opened or read, is not a regular file, is over
    /// `maximumFileBytes`, or holds a line that is not valid UTF-8.
    public init(contentsOfFile path: String) throws(DenyListError) {
        let contents = try Self.readFile(path)
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
                throw DenyListError(path: path, line: lineNumber, reason: "not valid UTF-8")
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

    private static func readFile(_ path: String) throws(DenyListError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw DenyListError(path: path, reason: "cannot open: \(Self.errnoText())")
        }
        defer { close(descriptor) }

        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw DenyListError(path: path, reason: "cannot stat: \(Self.errnoText())")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw DenyListError(path: path, reason: "not a regular file")
        }

        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let got = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if got < 0 {
                if errno == EINTR { continue }
                throw DenyListError(path: path, reason: "cannot read: \(Self.errnoText())")
            }
            if got == 0 { return contents }
            guard contents.count + got <= maximumFileBytes else {
                throw DenyListError(path: path, reason: "larger than \(maximumFileBytes) bytes")
            }
            contents.append(contentsOf: chunk[0..<got])
        }
    }

    private static func errnoText() -> String {
        String(cString: strerror(errno))
    }
}
