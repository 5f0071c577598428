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
        buffer.append(UInt8(ascii: "\""))
        for byte in string.utf8 { appendEscaped(byte, to: buffer) }
        buffer.append(UInt8(ascii: "\""))
    }

    /// Writes a JSON string straight from secret memory, never through a Swift `String`.
    public static func appendSecretString(
        _ secret: SecretBytes,
        encoding: SecretStringEncoding,
        to buffer: ReplyBuffer
    ) {
        buffer.append(UInt8(ascii: "\""))
        secret.withUnsafeBytes { bytes in
            switch encoding {
            case .raw:
                for byte in bytes { appendEscaped(byte, to: buffer) }
            case .base64url:
                Base64.encode(bytes, alphabet: .url) { buffer.append($0) }
            }
        }
        buffer.append(UInt8(ascii: "\""))
    }

    /// Writes an integer.
    public static func appendInt(_ value: Int64, to buffer: ReplyBuffer) {
        buffer.append(utf8: String(value))
    }

    /// Writes `true` or `false`.
    public static func appendBool(_ value: Bool, to buffer: ReplyBuffer) {
        buffer.append(utf8: value ? "true" : "false")
    }

    /// Writes `null`.
    public static func appendNull(to buffer: ReplyBuffer) {
        buffer.append(utf8: "null")
    }

    private static func appendEscaped(_ byte: UInt8, to buffer: ReplyBuffer) {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"):
            buffer.append(UInt8(ascii: "\\"))
            buffer.append(byte)
        case 0x0A: appendShortEscape(UInt8(ascii: "n"), to: buffer)
        case 0x0D: appendShortEscape(UInt8(ascii: "r"), to: buffer)
        case 0x09: appendShortEscape(UInt8(ascii: "t"), to: buffer)
        case 0x08: appendShortEscape(UInt8(ascii: "b"), to: buffer)
        case 0x0C: appendShortEscape(UInt8(ascii: "f"), to: buffer)
        case 0x00..<0x20:
            let hex = Array("0123456789abcdef".utf8)
            buffer.append(utf8: "\\u00")
            buffer.append(hex[Int(byte >> 4)])
            buffer.append(hex[Int(byte & 0x0F)])
        default:
            buffer.append(byte)
        }
    }

    private static func appendShortEscape(_ letter: UInt8, to buffer: ReplyBuffer) {
        buffer.append(UInt8(ascii: "\\"))
        buffer.append(letter)
    }
}
