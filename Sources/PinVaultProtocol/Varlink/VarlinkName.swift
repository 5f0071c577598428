/// The Varlink grammar for interface and member names.
public enum VarlinkName {
    /// A reverse-domain interface name: two or more dot-separated labels of ASCII letters,
    /// digits and inner dashes, the first starting with a letter (`io.pinvault.Vault`).
    public static func isValidInterface(_ name: some StringProtocol) -> Bool {
        let labels = Array(name.utf8).split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard labels.count >= 2, let first = labels.first?.first, isLetter(first) else { return false }
        for label in labels {
            guard let head = label.first, let tail = label.last,
                  head != UInt8(ascii: "-"), tail != UInt8(ascii: "-") else { return false }
            for byte in label where !(isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "-")) {
                return false
            }
        }
        return true
    }

    /// A method, error or type name: an uppercase ASCII letter, then letters and digits.
    public static func isValidMember(_ name: some StringProtocol) -> Bool {
        guard let first = name.utf8.first, first >= UInt8(ascii: "A"), first <= UInt8(ascii: "Z") else {
            return false
        }
        return name.utf8.allSatisfy { isLetter($0) || isDigit($0) }
    }

    /// Splits `"interface.Member"` at its last dot when both halves are valid.
    public static func split(qualified name: String) -> (interface: String, member: String)? {
        guard let dot = name.utf8.lastIndex(of: UInt8(ascii: ".")) else { return nil }
        let interface = name[name.startIndex..<dot]
        let member = name[name.utf8.index(after: dot)...]
        guard isValidInterface(interface), isValidMember(member) else { return nil }
        return (String(interface), String(member))
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
