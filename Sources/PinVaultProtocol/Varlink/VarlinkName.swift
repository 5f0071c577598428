/// The Varlink grammar for interface and member names.
///
/// The checks run on UTF-8 bytes in one pass without allocating: every call's method
/// name goes through `split(qualified:)`.
public enum VarlinkName {
    /// A reverse-domain interface name: two or more dot-separated labels of ASCII letters,
    /// digits and inner dashes, the first starting with a letter (`io.pinvault.Vault`).
    public static func isValidInterface(_ name: some StringProtocol) -> Bool {
        isValidInterface(utf8: name.utf8)
    }

    /// A method, error or type name: an uppercase ASCII letter, then letters and digits.
    public static func isValidMember(_ name: some StringProtocol) -> Bool {
        isValidMember(utf8: name.utf8)
    }

    /// Splits `"interface.Member"` at its last dot when both halves are valid.
    public static func split(qualified name: String) -> (interface: String, member: String)? {
        var name = name
        return name.withUTF8 { utf8 in
            let bytes = UnsafeRawBufferPointer(utf8)
            guard let dot = splitOffset(qualified: bytes) else { return nil }
            return (
                String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<dot]), as: UTF8.self),
                String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(dot + 1)...]), as: UTF8.self)
            )
        }
    }

    /// The offset of the dot that splits the UTF-8 `"interface.Member"` when both halves
    /// are valid; nil otherwise. Allocates nothing.
    public static func splitOffset(qualified bytes: UnsafeRawBufferPointer) -> Int? {
        guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")) else { return nil }
        guard isValidInterface(utf8: UnsafeRawBufferPointer(rebasing: bytes[..<dot])),
              isValidMember(utf8: UnsafeRawBufferPointer(rebasing: bytes[(dot + 1)...])) else { return nil }
        return dot
    }

    private static func isValidInterface(utf8: some Collection<UInt8>) -> Bool {
        var dots = 0
        var labelLength = 0
        var previous: UInt8 = 0
        for byte in utf8 {
            if byte == UInt8(ascii: ".") {
                guard labelLength > 0, previous != UInt8(ascii: "-") else { return false }
                dots += 1
                labelLength = 0
            } else {
                if labelLength == 0 {
                    guard byte != UInt8(ascii: "-"), dots > 0 || isLetter(byte) else { return false }
                }
                guard isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "-") else { return false }
                labelLength += 1
            }
            previous = byte
        }
        guard labelLength > 0, previous != UInt8(ascii: "-") else { return false }
        return dots >= 1
    }

    private static func isValidMember(utf8: some Collection<UInt8>) -> Bool {
        guard let first = utf8.first, first >= UInt8(ascii: "A"), first <= UInt8(ascii: "Z") else {
            return false
        }
        return utf8.allSatisfy { isLetter($0) || isDigit($0) }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
