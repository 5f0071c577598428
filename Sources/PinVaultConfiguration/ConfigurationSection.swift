/// Typed, checked reads of one TOML table of the configuration. Every failure is a
/// `ConfigurationError` naming the file, the key and its line.
public struct ConfigurationSection {
    /// The configuration file, for errors.
    public let file: String
    /// The table read.
    public let table: TOMLTable

    public init(file: String, table: TOMLTable) {
        self.file = file
        self.table = table
    }

    /// `section.key`, or the bare key for the root table.
    public func qualified(_ key: String) -> String {
        table.name.isEmpty ? key : "\(table.name).\(key)"
    }

    /// An error about `key`, at its line when present.
    public func error(_ key: String, _ reason: String) -> ConfigurationError {
        ConfigurationError(file: file, line: table[key]?.line, key: qualified(key), reason: reason)
    }

    /// Throws for the first key, in file order, that is not in `known`.
    public func refuseUnknownKeys(_ known: [String]) throws(ConfigurationError) {
        for key in table.keys where !known.contains(key) {
            let place = table.name.isEmpty ? "at the top level" : "in [\(table.name)]"
            throw error(key, "unknown key; known keys \(place): \(known.joined(separator: ", "))")
        }
    }

    /// The line of `key`, if present.
    public func line(of key: String) -> Int? { table[key]?.line }

    /// The integer at `key` within `range`, or nil when absent.
    public func integer(_ key: String, in range: ClosedRange<Int64>) throws(ConfigurationError) -> Int64? {
        guard let entry = table[key] else { return nil }
        guard case .integer(let value) = entry.value else {
            throw error(key, "expected an integer, got \(entry.value.typeDescription)")
        }
        guard range.contains(value) else {
            throw error(key, "must be between \(range.lowerBound) and \(range.upperBound), got \(value)")
        }
        return value
    }

    /// The boolean at `key`, or nil when absent.
    public func boolean(_ key: String) throws(ConfigurationError) -> Bool? {
        guard let entry = table[key] else { return nil }
        guard case .boolean(let value) = entry.value else {
            throw error(key, "expected true or false, got \(entry.value.typeDescription)")
        }
        return value
    }

    /// The string at `key`, or nil when absent.
    public func string(_ key: String) throws(ConfigurationError) -> String? {
        guard let entry = table[key] else { return nil }
        guard case .string(let value) = entry.value else {
            throw error(key, "expected a string, got \(entry.value.typeDescription)")
        }
        return value
    }

    /// The array of strings at `key`, or nil when absent.
    public func strings(_ key: String) throws(ConfigurationError) -> [String]? {
        guard let entry = table[key] else { return nil }
        guard case .array(let elements) = entry.value else {
            throw error(key, "expected an array of strings, got \(entry.value.typeDescription)")
        }
        var strings: [String] = []
        for element in elements {
            guard case .string(let value) = element else {
                throw error(key, "expected an array of strings, got an array of integers")
            }
            strings.append(value)
        }
        return strings
    }

    /// The string at `key`, which must be one of `choices`, or nil when absent.
    public func choice(_ key: String, of choices: [String]) throws(ConfigurationError) -> String? {
        guard let value = try string(key) else { return nil }
        guard choices.contains(value) else {
            let quoted = choices.map { "\"\($0)\"" }.joined(separator: ", ")
            throw error(key, "must be one of \(quoted), got \"\(value)\"")
        }
        return value
    }
}

extension ConfigurationSection {
    /// The longest path accepted for a file or directory (Linux `PATH_MAX` less the NUL).
    public static let maximumPathBytes = 4095

    /// The absolute path at `key`, at most `maxBytes` bytes, or nil when absent.
    public func absolutePath(_ key: String, maxBytes: Int = maximumPathBytes) throws(ConfigurationError) -> String? {
        guard let path = try string(key) else { return nil }
        guard path.hasPrefix("/") else { throw error(key, "must be an absolute path, got \"\(path)\"") }
        guard !path.utf8.contains(0) else { throw error(key, "must not contain a NUL character") }
        guard path.utf8.count <= maxBytes else { throw error(key, "must be at most \(maxBytes) bytes long") }
        return path
    }

    /// The key of the two that is present, for an error about how they relate.
    public func either(_ first: String, _ second: String) -> String {
        table[first] != nil ? first : second
    }
}
