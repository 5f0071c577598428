import PinVaultClient

/// A JSON document for `--json` output, with keys in the order given (the interface's
/// order), written without Foundation so that a secret can go straight from secret
/// memory to the output.
indirect enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])
    /// The unregistration token's text, written from its secret memory (base64url,
    /// which needs no escaping).
    case token(UnregistrationToken)

    /// Writes the document, indented by two spaces per level, and a newline.
    func write(to stream: StandardStream) {
        write(to: stream, indent: 0)
        stream.write("\n")
    }

    private func write(to stream: StandardStream, indent: Int) {
        switch self {
        case .null: stream.write("null")
        case .bool(let value): stream.write(value ? "true" : "false")
        case .int(let value): stream.write(String(value))
        case .string(let value): stream.write(Self.quoted(value))
        case .token(let token):
            stream.write("\"")
            token.withUnsafeBytes { stream.write($0) }
            stream.write("\"")
        case .array(let elements):
            writeContainer(elements.map { (nil, $0) }, open: "[", close: "]", to: stream, indent: indent)
        case .object(let fields):
            writeContainer(fields.map { ($0.0, $0.1) }, open: "{", close: "}", to: stream, indent: indent)
        }
    }

    private func writeContainer(
        _ members: [(String?, JSONValue)], open: String, close: String, to stream: StandardStream, indent: Int
    ) {
        guard !members.isEmpty else { return stream.write(open + close) }
        let inner = String(repeating: "  ", count: indent + 1)
        stream.write(open + "\n")
        for (index, (key, value)) in members.enumerated() {
            stream.write(inner)
            if let key { stream.write(Self.quoted(key) + ": ") }
            value.write(to: stream, indent: indent + 1)
            stream.write(index == members.count - 1 ? "\n" : ",\n")
        }
        stream.write(String(repeating: "  ", count: indent) + close)
    }

    /// `text` as a JSON string literal (RFC 8259 escapes; other characters as UTF-8).
    /// Besides the C0 controls that JSON requires escaped, DEL and the C1 controls
    /// (U+009B is CSI to a terminal that shows the document) and U+2028/U+2029 (line
    /// ends to JavaScript) are written as `\uXXXX`.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
                || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
