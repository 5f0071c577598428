import PinVaultCrypto

/// How `JSONWriter.appendSecretString` spells a secret inside a JSON string.
public enum SecretStringEncoding: Sendable {
    /// The secret's bytes themselves, JSON-escaped; the secret must be UTF-8 text.
    case raw
    /// Unpadded base64url (RFC 4648 §5), as the unregistration token is sent.
    case base64url
}

/// Writes JSON values into a `ReplyBuffer`'s bytes.
///
/// Objects and arrays are written through `JSONObjectWriter` and `JSONArrayWriter`,
/// whose closures make every container closed and every comma placed by construction.
/// A writer holds the bytes alone while it writes (`ReplyBytes` is non-copyable), so
/// one object is one access to its buffer. Strings are escaped per RFC 8259: `"` `\`
/// and the C0 controls; everything else, non-ASCII included, is written as UTF-8.
public enum JSONWriter {
    /// Writes one object into `buffer`.
    public static func writeObject(into buffer: ReplyBuffer, _ body: (inout JSONObjectWriter) -> Void) {
        buffer.write { writeObject(into: &$0, body) }
    }

    /// Writes one object.
    public static func writeObject(into output: inout ReplyBytes, _ body: (inout JSONObjectWriter) -> Void) {
        output.append(UInt8(ascii: "{"))
        var writer = JSONObjectWriter(output: consume output)
        body(&writer)
        output = writer.finish()
        output.append(UInt8(ascii: "}"))
    }

    /// Writes one array into `buffer`.
    public static func writeArray(into buffer: ReplyBuffer, _ body: (inout JSONArrayWriter) -> Void) {
        buffer.write { writeArray(into: &$0, body) }
    }

    /// Writes one array.
    public static func writeArray(into output: inout ReplyBytes, _ body: (inout JSONArrayWriter) -> Void) {
        output.append(UInt8(ascii: "["))
        var writer = JSONArrayWriter(output: consume output)
        body(&writer)
        output = writer.finish()
        output.append(UInt8(ascii: "]"))
    }

    /// Writes a quoted, escaped string.
    public static func appendString(_ string: String, to output: inout ReplyBytes) {
        var string = string
        string.withUTF8 { appendQuoted(UnsafeRawBufferPointer($0), to: &output) }
    }

    /// Writes a JSON string straight from secret memory, never through a Swift `String`.
    public static func appendSecretString(
        _ secret: SecretBytes,
        encoding: SecretStringEncoding,
        to output: inout ReplyBytes
    ) {
        secret.withUnsafeBytes { bytes in
            switch encoding {
            case .raw:
                appendQuoted(bytes, to: &output)
            case .base64url:
                output.append(UInt8(ascii: "\""))
                Base64.encode(bytes, alphabet: .url) { output.append($0) }
                output.append(UInt8(ascii: "\""))
            }
        }
    }

    /// Writes `bytes` as a quoted string of standard base64, in one append.
    static func appendBase64(_ bytes: [UInt8], to output: inout ReplyBytes) {
        let encoded = (bytes.count + 2) / 3 * 4
        output.append(byteCount: encoded + 2) { target in
            target.storeBytes(of: UInt8(ascii: "\""), as: UInt8.self)
            var offset = 1
            bytes.withUnsafeBytes { source in
                Base64.encode(source, alphabet: .standard) { byte in
                    target.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self)
                    offset += 1
                }
            }
            target.storeBytes(of: UInt8(ascii: "\""), toByteOffset: offset, as: UInt8.self)
        }
    }

    /// Writes `"key":`, after a comma when `separated`, for a literal key that needs no
    /// escape: one append of the key's bytes with its punctuation.
    static func appendKey(_ key: StaticString, separated: Bool, to output: inout ReplyBytes) {
        key.withUTF8Buffer { bytes in
            assert(!bytes.contains(where: needsEscape), "a JSON key literal needs no escape")
            let comma = separated ? 1 : 0
            output.append(byteCount: comma + bytes.count + 3) { target in
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
    public static func appendInt(_ value: Int64, to output: inout ReplyBytes) {
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
            output.append(UnsafeRawBufferPointer(rebasing: digits[start...]))
        }
    }

    /// Writes `true` or `false`.
    public static func appendBool(_ value: Bool, to output: inout ReplyBytes) {
        appendLiteral(value ? "true" : "false", to: &output)
    }

    /// Writes `null`.
    public static func appendNull(to output: inout ReplyBytes) {
        appendLiteral("null", to: &output)
    }

    private static func appendLiteral(_ literal: StaticString, to output: inout ReplyBytes) {
        literal.withUTF8Buffer { output.append(UnsafeRawBufferPointer($0)) }
    }

    /// Writes `bytes` as a quoted JSON string: each run of bytes that needs no escape
    /// goes to the buffer in one append, each byte that does as its escape.
    private static func appendQuoted(_ bytes: UnsafeRawBufferPointer, to output: inout ReplyBytes) {
        output.append(UInt8(ascii: "\""))
        var runStart = 0
        while true {
            let runEnd = endOfRun(in: bytes, from: runStart)
            output.append(UnsafeRawBufferPointer(rebasing: bytes[runStart..<runEnd]))
            guard runEnd < bytes.count else { break }
            appendEscape(of: bytes[runEnd], to: &output)
            runStart = runEnd + 1
        }
        output.append(UInt8(ascii: "\""))
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

    private static func appendEscape(of byte: UInt8, to output: inout ReplyBytes) {
        output.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(byte)
        case 0x0A: output.append(UInt8(ascii: "n"))
        case 0x0D: output.append(UInt8(ascii: "r"))
        case 0x09: output.append(UInt8(ascii: "t"))
        case 0x08: output.append(UInt8(ascii: "b"))
        case 0x0C: output.append(UInt8(ascii: "f"))
        default:
            appendLiteral("u00", to: &output)
            output.append(hexDigit(byte >> 4))
            output.append(hexDigit(byte & 0x0F))
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
