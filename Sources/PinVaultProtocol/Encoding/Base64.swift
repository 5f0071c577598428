import PinVaultCrypto

/// Strict RFC 4648 base64: standard alphabet with padding (keys, signatures,
/// challenges) and url-safe without padding (the unregistration token).
///
/// Decoding accepts exactly one spelling per byte string: no whitespace, no line
/// breaks, no missing or extra padding, no padding in the url-safe form, and no
/// non-zero bits left over in the last character (so `QQ==` decodes but `QR==` does
/// not). Output goes to a sink, so a secret can be decoded straight into `SecretBytes`.
public enum Base64 {
    /// Which RFC 4648 variant.
    public enum Alphabet: Sendable {
        /// §4: `A–Z a–z 0–9 + /`, padded with `=` to a multiple of 4.
        case standard
        /// §5: `A–Z a–z 0–9 - _`, no padding.
        case url
    }

    /// Why a string is not canonical base64.
    public enum DecodingError: Error, Equatable, Sendable {
        /// A byte outside the alphabet (whitespace included), or `=` not at the end.
        case invalidCharacter
        /// A length no encoding produces.
        case invalidLength
        /// Leftover bits in the last character are not zero.
        case nonCanonical
        /// The destination is full.
        case tooLong
    }

    // MARK: Encoding

    /// Feeds the encoding of `bytes` to `sink`.
    public static func encode(_ bytes: UnsafeRawBufferPointer, alphabet: Alphabet, into sink: (UInt8) -> Void) {
        let table = alphabet == .standard ? standardTable : urlTable
        var index = 0
        while index + 3 <= bytes.count {
            let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            sink(table[Int(group >> 18 & 0x3F)])
            sink(table[Int(group >> 12 & 0x3F)])
            sink(table[Int(group >> 6 & 0x3F)])
            sink(table[Int(group & 0x3F)])
            index += 3
        }
        let remaining = bytes.count - index
        guard remaining > 0 else { return }
        let first = UInt32(bytes[index])
        let second = remaining == 2 ? UInt32(bytes[index + 1]) : 0
        let group = first << 16 | second << 8
        sink(table[Int(group >> 18 & 0x3F)])
        sink(table[Int(group >> 12 & 0x3F)])
        if remaining == 2 { sink(table[Int(group >> 6 & 0x3F)]) }
        if alphabet == .standard {
            sink(UInt8(ascii: "="))
            if remaining == 1 { sink(UInt8(ascii: "=")) }
        }
    }

    /// The encoding of `bytes` as a string. Not for secrets.
    public static func encodedString(_ bytes: [UInt8], alphabet: Alphabet = .standard) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        bytes.withUnsafeBytes { encode($0, alphabet: alphabet) { out.append($0) } }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: Decoding

    /// An upper bound of the decoded length of `encodedCount` characters, to check a
    /// limit or size a buffer before decoding.
    public static func maximumDecodedLength(encodedCount: Int) -> Int {
        encodedCount / 4 * 3 + 2
    }

    /// Feeds the bytes `text` encodes to `sink` (which returns false when full).
    public static func decode(
        _ text: UnsafeRawBufferPointer,
        alphabet: Alphabet,
        into sink: (UInt8) -> Bool
    ) throws(DecodingError) {
        var dataCount = text.count
        if alphabet == .standard {
            guard text.count % 4 == 0 else { throw .invalidLength }
            if dataCount > 0, text[dataCount - 1] == UInt8(ascii: "=") { dataCount -= 1 }
            if dataCount > 0, text[dataCount - 1] == UInt8(ascii: "="), dataCount % 4 == 3 { dataCount -= 1 }
        }
        guard dataCount % 4 != 1 else { throw .invalidLength }
        var index = 0
        while index + 4 <= dataCount {
            let group = try value(text[index], alphabet) << 18 | value(text[index + 1], alphabet) << 12
                | value(text[index + 2], alphabet) << 6 | value(text[index + 3], alphabet)
            guard sink(UInt8(group >> 16 & 0xFF)), sink(UInt8(group >> 8 & 0xFF)), sink(UInt8(group & 0xFF)) else {
                throw .tooLong
            }
            index += 4
        }
        switch dataCount - index {
        case 2:
            let group = try value(text[index], alphabet) << 18 | value(text[index + 1], alphabet) << 12
            guard group & 0xFFFF == 0 else { throw .nonCanonical }
            guard sink(UInt8(group >> 16 & 0xFF)) else { throw .tooLong }
        case 3:
            let group = try value(text[index], alphabet) << 18 | value(text[index + 1], alphabet) << 12
                | value(text[index + 2], alphabet) << 6
            guard group & 0xFF == 0 else { throw .nonCanonical }
            guard sink(UInt8(group >> 16 & 0xFF)), sink(UInt8(group >> 8 & 0xFF)) else { throw .tooLong }
        default:
            break
        }
    }

    /// The bytes `text` encodes. Not for secrets.
    public static func decode(_ text: String, alphabet: Alphabet = .standard) throws(DecodingError) -> [UInt8] {
        var out = [UInt8]()
        var text = text
        let result: Result<Void, DecodingError> = text.withUTF8 { utf8 in
            out.reserveCapacity(maximumDecodedLength(encodedCount: utf8.count))
            do throws(DecodingError) {
                try decode(UnsafeRawBufferPointer(utf8), alphabet: alphabet) { out.append($0); return true }
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
        return out
    }

    /// Decodes `text` into `secret` (replacing its contents); `.tooLong` when the
    /// decoded bytes exceed its capacity. On any error the secret is left wiped.
    public static func decode(
        _ text: UnsafeRawBufferPointer,
        alphabet: Alphabet,
        into secret: SecretBytes
    ) throws(DecodingError) {
        secret.wipe()
        do {
            try decode(text, alphabet: alphabet) { secret.append($0) }
        } catch {
            secret.wipe()
            throw error
        }
    }

    // MARK: Tables

    private static let standardTable: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlTable: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static func value(_ byte: UInt8, _ alphabet: Alphabet) throws(DecodingError) -> UInt32 {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return UInt32(byte - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return UInt32(byte - UInt8(ascii: "a")) + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0")) + 52
        case UInt8(ascii: "+") where alphabet == .standard: return 62
        case UInt8(ascii: "/") where alphabet == .standard: return 63
        case UInt8(ascii: "-") where alphabet == .url: return 62
        case UInt8(ascii: "_") where alphabet == .url: return 63
        default: throw .invalidCharacter
        }
    }
}
