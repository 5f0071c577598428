/// Turns the escaped bytes between a JSON string's quotes into the UTF-8 bytes they
/// stand for, one byte at a time into a sink, so the destination (a `SecretBytes` for
/// a PIN, a small array for a name) is the only place the decoded text ever exists.
///
/// Expects input the parser has validated; on anything malformed it stops and returns
/// false rather than trapping.
enum JSONUnescaper {
    /// Feeds the decoded bytes of `raw` to `sink`; false when `raw` is malformed or the
    /// sink refused a byte (returned false).
    static func unescape(_ raw: UnsafeRawBufferPointer, into sink: (UInt8) -> Bool) -> Bool {
        var index = 0
        while index < raw.count {
            let byte = raw[index]
            guard byte == UInt8(ascii: "\\") else {
                guard sink(byte) else { return false }
                index += 1
                continue
            }
            guard index + 1 < raw.count else { return false }
            let escape = raw[index + 1]
            index += 2
            let simple: UInt8?
            switch escape {
            case UInt8(ascii: "\""): simple = 0x22
            case UInt8(ascii: "\\"): simple = 0x5C
            case UInt8(ascii: "/"): simple = 0x2F
            case UInt8(ascii: "b"): simple = 0x08
            case UInt8(ascii: "f"): simple = 0x0C
            case UInt8(ascii: "n"): simple = 0x0A
            case UInt8(ascii: "r"): simple = 0x0D
            case UInt8(ascii: "t"): simple = 0x09
            case UInt8(ascii: "u"): simple = nil
            default: return false
            }
            if let simple {
                guard sink(simple) else { return false }
                continue
            }
            guard let unit = hex4(raw, at: index) else { return false }
            index += 4
            var scalar = UInt32(unit)
            if isHighSurrogate(unit) {
                guard index + 6 <= raw.count, raw[index] == UInt8(ascii: "\\"),
                      raw[index + 1] == UInt8(ascii: "u"),
                      let low = hex4(raw, at: index + 2), isLowSurrogate(low) else { return false }
                index += 6
                scalar = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            } else if isLowSurrogate(unit) {
                return false
            }
            guard appendUTF8(scalar, into: sink) else { return false }
        }
        return true
    }

    /// The value of one hex digit (either case).
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// U+D800–U+DBFF.
    static func isHighSurrogate(_ unit: UInt16) -> Bool { unit >= 0xD800 && unit <= 0xDBFF }

    /// U+DC00–U+DFFF.
    static func isLowSurrogate(_ unit: UInt16) -> Bool { unit >= 0xDC00 && unit <= 0xDFFF }

    private static func hex4(_ raw: UnsafeRawBufferPointer, at index: Int) -> UInt16? {
        guard index + 4 <= raw.count else { return nil }
        var value: UInt16 = 0
        for offset in 0..<4 {
            guard let digit = hexValue(raw[index + offset]) else { return nil }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    private static func appendUTF8(_ scalar: UInt32, into sink: (UInt8) -> Bool) -> Bool {
        switch scalar {
        case 0..<0x80:
            return sink(UInt8(scalar))
        case 0x80..<0x800:
            return sink(UInt8(0xC0 | scalar >> 6)) && sink(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            return sink(UInt8(0xE0 | scalar >> 12)) && sink(UInt8(0x80 | scalar >> 6 & 0x3F))
                && sink(UInt8(0x80 | scalar & 0x3F))
        default:
            return sink(UInt8(0xF0 | scalar >> 18)) && sink(UInt8(0x80 | scalar >> 12 & 0x3F))
                && sink(UInt8(0x80 | scalar >> 6 & 0x3F)) && sink(UInt8(0x80 | scalar & 0x3F))
        }
    }
}
