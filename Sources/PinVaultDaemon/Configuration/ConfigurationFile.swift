import Glibc

/// Reads the configuration file's text.
enum ConfigurationFile {
    /// The largest configuration file read; the shipped one is a few KiB.
    static let maximumBytes = 1 << 20

    /// The file's contents as UTF-8 text. Throws, naming the file, when it cannot be
    /// opened or read, is not a regular file, is over `maximumBytes`, or is not UTF-8.
    static func text(at path: String) throws(ConfigurationError) -> String {
        func failure(_ reason: String, line: Int? = nil) -> ConfigurationError {
            ConfigurationError(file: path, line: line, reason: reason)
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("cannot open: \(errnoText())") }
        defer { close(descriptor) }

        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw failure("cannot stat: \(errnoText())") }
        guard status.st_mode & S_IFMT == S_IFREG else { throw failure("not a regular file") }

        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let got = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if got < 0 {
                if errno == EINTR { continue }
                throw failure("cannot read: \(errnoText())")
            }
            if got == 0 { break }
            guard contents.count + got <= maximumBytes else { throw failure("larger than \(maximumBytes) bytes") }
            contents.append(contentsOf: chunk[0..<got])
        }
        if let text = String(validating: contents, as: UTF8.self) { return text }
        var line = 1
        for slice in contents.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            if String(validating: slice, as: UTF8.self) == nil { break }
            line += 1
        }
        throw failure("not valid UTF-8", line: line)
    }

    private static func errnoText() -> String {
        String(cString: strerror(errno))
    }
}
