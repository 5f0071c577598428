import PinVaultSystem

/// Reads the configuration file's text.
public enum ConfigurationFile {
    /// The largest configuration file read; the shipped one is a few KiB.
    public static let maximumBytes = 1 << 20

    /// The file's contents as UTF-8 text. Throws, naming the file, when it cannot be
    /// opened or read, is not a regular file, is over `maximumBytes`, or is not UTF-8.
    public static func text(at path: String) throws(ConfigurationError) -> String {
        let contents: [UInt8]
        do {
            contents = try RegularFile.read(path: path, maxBytes: maximumBytes)
        } catch {
            throw ConfigurationError(file: path, line: nil, reason: error.description)
        }
        if let text = String(validating: contents, as: UTF8.self) { return text }
        var line = 1
        for slice in contents.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            if String(validating: slice, as: UTF8.self) == nil { break }
            line += 1
        }
        throw ConfigurationError(file: path, line: line, reason: "not valid UTF-8")
    }
}
