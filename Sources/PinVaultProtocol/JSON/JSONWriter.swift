import PinVaultCrypto

/// How `JSONWriter.appendSecretString` spells a secret inside a JSON string.
public enum SecretStringEncoding: Sendable {
    /// The secret's bytes themselves, JSON-escaped; the secret must be UTF-8 text.
    case raw
    /// Unpadded base64url (RFC 4648 §5), as the unregistration token is sent.
    case base64url
}

/// Writes JSON values into a `ReplyBuffer`.
///
/// Objects and arrays are written through `JSONObjectWriter` and `JSONArrayWriter`,
/// whose closures make every container closed and every comma placed by construction.
/// Strings are escaped per RFC 8259: `"` `\` and the C0 controls; everything else,
/// non-ASCII included, is written as UTF-8.
public enum JSONWriter {
    /// Writes one object.
    public static func writeObject(into buffer: ReplyBuffer, _ body: (inout JSONObjectWriter) -> Void) {
        buffer.append(UInt8(ascii: "{"))
        var writer = JSONObjectWriter(buffer: buffer)
        body(&writer)
        buffer.append(UInt8(ascii: "}"))
    }

    /// Writes one array.
    public static func writeArray(into buffer: ReplyBuffer, _ body: (inout JSONArrayWriter) -> Void) {
        buffer.append(UInt8(ascii: "["))
        var writer = JSONArrayWriter(buffer: buffer)
        body(&writer)
        buffer.append(UInt8(ascii: "]"))
    }

    /// Writes a quoted, escaped string.
    public static func appendString(_ string: String, to buffer: ReplyBuffer) {
        var string = string
        string.withUTF8 { appendQuoted(UnsafeRawBufferPointer($0), to: buffer) }
    }

    /// Writes a JSON string straight from secret memory, never through a Swift `String`.
    public static func appendSecretString(
        _ secret: SecretBytes,
        encoding: SecretStringEncoding,
        to buffer: ReplyBuffer
    ) {
        secret.withUnsafeBytes { bytes in
            switch encoding {
            case .raw:
                appendQuoted(bytes, to: buffer)
            case .base64url:
                buffer.append(UInt8(ascii: "\""))
                Base64.encode(bytes, alphabet: .url) { buffer.append($0) }
                buffer.append(UInt8(ascii: "\""))
            }
        }
    }

    /// Writes `"key":`, after a comma when `separated`, for a literal key that needs no
    /// escape: one append of the key's bytes with its punctuation.
    static func appendKey(_ key: StaticString, separated: Bool, to buffer: ReplyBuffer) {
        key.withUTF8Buffer { bytes in
            assert(!bytes.contains(where: needsEscape), "a JSON key literal needs no escape")
            let comma = separated ? 1 : 0
            buffer.append(byteCount: comma + bytes.count + 3) { target in
                if separated { target.storeBytes(of: UInt8(ascii: ","), as: UInt8.self) }
                target.storeBytes(of: UInt8(ascii: "\""), toByteOffset: comma, as: UInt8.self)
                if let source = bytes.baseAddress {
                    (target + comma + 1).copyMemory(from: source, byteCount: bytes.count)
                }
                target.storeBytes(of: UInt8(ascii: "\""), toByteOffset: comma + 1 + bytes.count, as: UInt8.self)
                target.storeBytes(of: UInt8(ascii: ":"), toByteOffset: comma + 2 + bytes.count, as: UInt8.self)
            }
        }
    }

    /// Writes an integer: its digits are formed on the stack, not in a `String`.
    public static func appendInt(_ value: Int64, to buffer: ReplyBuffer) {
        // 19 digits and a sign hold every Int64.
        withUnsafeTemporaryAllocation(byteCount: 20, alignment: 1) { digits in
            var magnitude = value.magnitude
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                start -= 1
                digits[start] = UInt8(ascii: "-")
            }
            buffer.append(UnsafeRawBufferPointer(rebasing: digits[start...]))
        }
    }

    /// Writes `true` or `false`.
    public static func appendBool(_ value: Bool, to buffer: ReplyBuffer) {
        appendLiteral(value ? "true" : "false", to: buffer)
    }

    /// Writes `null`.
    public static func appendNull(to buffer: ReplyBuffer) {
        appendLiteral("null", to: buffer)
    }

    private static func appendLiteral(_ literal: StaticString, to buffer: ReplyBuffer) {
        literal.withUTF8Buffer { buffer.append(UnsafeRawBufferPointer($0)) }
    }

    /// Writes `bytes` as a quoted JSON string: each run of bytes that needs no escape
    /// goes to the buffer in one append, each byte that does as its escape.
    private static func appendQuoted(_ bytes: UnsafeRawBufferPointer, to buffer: ReplyBuffer) {
        buffer.append(UInt8(ascii: "\""))
        var runStart = 0
        while true {
            let runEnd = endOfRun(in: bytes, from: runStart)
            buffer.append(UnsafeRawBufferPointer(rebasing: bytes[runStart..<runEnd]))
            guard runEnd < bytes.count else { break }
            appendEscape(of: bytes[runEnd], to: buffer)
            runStart = runEnd + 1
        }
        buffer.append(UInt8(ascii: "\""))
    }

    /// The offset of the first byte from `start` on that needs an escape, or the end.
    private static func endOfRun(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        var index = start
        while index < bytes.count && !needsEscape(bytes[index]) { index += 1 }
        return index
    }

    /// RFC 8259 §7: the quotation mark, the reverse solidus and the C0 controls.
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    private static func appendEscape(of byte: UInt8, to buffer: ReplyBuffer) {
        buffer.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): buffer.append(byte)
        case 0x0A: buffer.append(UInt8(ascii: "n"))
        case 0x0D: buffer.append(UInt8(ascii: "r"))
        case 0x09: buffer.append(UInt8(ascii: "t"))
        case 0x08: buffer.append(UInt8(ascii: "b"))
        case 0x0C: buffer.append(UInt8(ascii: "f"))
        default:
            appendLiteral("u00", to: buffer)
            buffer.append(hexDigit(byte >> 4))
            buffer.append(hexDigit(byte & 0x0F))
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
