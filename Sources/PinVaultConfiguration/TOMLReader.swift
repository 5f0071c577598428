/// A strict reader of the TOML subset PinVault's configuration uses.
///
/// Supported: `[section]` headers with bare names, `key = value` with bare keys,
/// `#` comments, basic strings `"…"` with TOML's escapes (`\b \t \n \f \r \" \\
/// \uXXXX \UXXXXXXXX`), literal strings `'…'`, decimal integers (optional sign, `_`
/// between digits, no leading zeros), `true`/`false`, and arrays of strings or of
/// integers that may span lines, hold comments and end with a comma.
///
/// Everything else TOML has — inline tables, arrays of tables, dotted or quoted keys,
/// floats, dates and times, hexadecimal/octal/binary integers, multi-line strings,
/// nested or mixed arrays — is refused with its line number and the words "not
/// supported", rather than misread. A key or section defined twice is an error.
public struct TOMLReader {
    private let bytes: [UInt8]
    private var position = 0
    private var line = 1

    private init(_ text: String) {
        bytes = Array(text.utf8)
    }

    /// Parses `text`.
    public static func parse(_ text: String) throws(TOMLError) -> TOMLDocument {
        var reader = TOMLReader(text)
        return try reader.document()
    }

    // MARK: - Lines

    private mutating func document() throws(TOMLError) -> TOMLDocument {
        var document = TOMLDocument()
        var sectionIndex: Int?  // nil: keys go to the root table
        while true {
            skipBlanks()
            guard let byte = peek() else { return document }
            switch byte {
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "#"):
                try endOfLine()
            case UInt8(ascii: "["):
                let table = try header(in: document)
                document.sections.append(table)
                sectionIndex = document.sections.count - 1
                try endOfLine()
            default:
                let keyLine = line
                let (key, value) = try keyValue()
                let entry = TOMLEntry(value: value, line: keyLine)
                if let sectionIndex {
                    try document.sections[sectionIndex].add(key, entry)
                } else {
                    try document.root.add(key, entry)
                }
                try endOfLine()
            }
        }
    }

    private mutating func header(in document: TOMLDocument) throws(TOMLError) -> TOMLTable {
        let headerLine = line
        position += 1  // "["
        if peek() == UInt8(ascii: "[") { throw error("arrays of tables ([[…]]) are not supported") }
        skipBlanks()
        let name = try key()
        skipBlanks()
        guard peek() == UInt8(ascii: "]") else { throw error("expected ']' to close the section header") }
        position += 1
        if let existing = document[section: name] {
            throw error("section [\(name)] is defined twice (first on line \(existing.line))", at: headerLine)
        }
        if let entry = document.root[name] {
            throw error("section [\(name)] is also a key (line \(entry.line))", at: headerLine)
        }
        return TOMLTable(name: name, line: headerLine)
    }

    private mutating func keyValue() throws(TOMLError) -> (String, TOMLValue) {
        let name = try key()
        skipBlanks()
        guard peek() == UInt8(ascii: "=") else { throw error("expected '=' after key '\(name)'") }
        position += 1
        skipBlanks()
        return (name, try value())
    }

    /// A bare key: ASCII letters, digits, `_` and `-`.
    private mutating func key() throws(TOMLError) -> String {
        let start = position
        while let byte = peek(), Self.isBareKeyByte(byte) { position += 1 }
        if position == start {
            switch peek() {
            case UInt8(ascii: "\""), UInt8(ascii: "'"): throw error("quoted keys are not supported")
            default: throw error("expected a key")
            }
        }
        if peek() == UInt8(ascii: ".") { throw error("dotted keys are not supported") }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    /// Blanks, then an optional comment, then a newline or the end of the text.
    private mutating func endOfLine() throws(TOMLError) {
        skipBlanks()
        if peek() == UInt8(ascii: "#") { try skipComment() }
        switch peek() {
        case nil:
            return
        case UInt8(ascii: "\n"):
            position += 1
            line += 1
        case UInt8(ascii: "\r") where peek(1) == UInt8(ascii: "\n"):
            position += 2
            line += 1
        default:
            throw error("expected the end of the line")
        }
    }

    private mutating func skipComment() throws(TOMLError) {
        position += 1  // "#"
        while let byte = peek(), byte != UInt8(ascii: "\n") {
            if byte == UInt8(ascii: "\r"), peek(1) == UInt8(ascii: "\n") { return }
            if Self.isControl(byte) { throw error("control character in a comment") }
            position += 1
        }
    }

    /// Spaces and tabs.
    private mutating func skipBlanks() {
        while let byte = peek(), byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { position += 1 }
    }

    /// Blanks, newlines and comments, inside an array.
    private mutating func skipBlanksAndNewlines() throws(TOMLError) {
        while true {
            skipBlanks()
            switch peek() {
            case UInt8(ascii: "#"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                try endOfLine()
            default:
                return
            }
        }
    }

    // MARK: - Values

    private mutating func value() throws(TOMLError) -> TOMLValue {
        switch peek() {
        case UInt8(ascii: "\""):
            if peek(1) == UInt8(ascii: "\""), peek(2) == UInt8(ascii: "\"") {
                throw error("multi-line strings are not supported")
            }
            return .string(try basicString())
        case UInt8(ascii: "'"):
            if peek(1) == UInt8(ascii: "'"), peek(2) == UInt8(ascii: "'") {
                throw error("multi-line strings are not supported")
            }
            return .string(try literalString())
        case UInt8(ascii: "["):
            return try array()
        case UInt8(ascii: "{"):
            throw error("inline tables are not supported")
        case nil, UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "#"):
            throw error("expected a value")
        default:
            return try bareValue()
        }
    }

    /// A boolean or a number: one run of bare characters.
    private mutating func bareValue() throws(TOMLError) -> TOMLValue {
        let start = position
        while let byte = peek(), Self.isBareValueByte(byte) { position += 1 }
        let token = String(decoding: bytes[start..<position], as: UTF8.self)
        switch token {
        case "true": return .boolean(true)
        case "false": return .boolean(false)
        case "": throw error("expected a value")
        default: break
        }
        let unsigned = token.first == "+" || token.first == "-" ? token.dropFirst() : Substring(token)
        if token.contains(":") || Self.startsLikeADate(unsigned) {
            throw error("dates and times are not supported")
        }
        if unsigned.hasPrefix("0x") || unsigned.hasPrefix("0o") || unsigned.hasPrefix("0b") {
            throw error("hexadecimal, octal and binary integers are not supported; write a decimal integer")
        }
        if unsigned == "inf" || unsigned == "nan" || (unsigned.first?.isNumber == true && unsigned.contains(where: { ".eE".contains($0) })) {
            throw error("floating-point numbers are not supported")
        }
        if unsigned.count > 1, unsigned.first == "0", unsigned.allSatisfy(\.isNumber) {
            throw error("leading zeros are not allowed in integers")
        }
        guard Self.isDecimalInteger(unsigned) else {
            throw error("invalid value '\(token)'")
        }
        let digits = token.filter { $0 != "_" }
        guard let integer = Int64(digits) else { throw error("integer \(token) is out of range") }
        return .integer(integer)
    }

    /// `YYYY-MM…`: four digits, a dash, two digits.
    private static func startsLikeADate(_ text: Substring) -> Bool {
        let bytes = Array(text.utf8.prefix(7))
        guard bytes.count == 7, bytes[4] == UInt8(ascii: "-") else { return false }
        return [0, 1, 2, 3, 5, 6].allSatisfy { isDigit(bytes[$0]) }
    }

    /// TOML's decimal integer without sign: `0`, or a digit 1–9 then digits, each
    /// underscore between two digits.
    private static func isDecimalInteger(_ text: Substring) -> Bool {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, isDigit(first) else { return false }
        if first == UInt8(ascii: "0") { return bytes.count == 1 }
        var previousWasDigit = true
        for byte in bytes.dropFirst() {
            if byte == UInt8(ascii: "_") {
                guard previousWasDigit else { return false }
                previousWasDigit = false
            } else {
                guard isDigit(byte) else { return false }
                previousWasDigit = true
            }
        }
        return previousWasDigit
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private mutating func basicString() throws(TOMLError) -> String {
        position += 1  // opening quote
        var result: [UInt8] = []
        while true {
            guard let byte = peek(), byte != UInt8(ascii: "\n") else { throw error("unterminated string") }
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: result, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try escape(into: &result)
            default:
                if Self.isControl(byte) { throw error("control character in a string; use an escape") }
                result.append(byte)
            }
        }
    }

    private mutating func escape(into result: inout [UInt8]) throws(TOMLError) {
        guard let byte = peek() else { throw error("unterminated string") }
        position += 1
        switch byte {
        case UInt8(ascii: "b"): result.append(0x08)
        case UInt8(ascii: "t"): result.append(0x09)
        case UInt8(ascii: "n"): result.append(0x0A)
        case UInt8(ascii: "f"): result.append(0x0C)
        case UInt8(ascii: "r"): result.append(0x0D)
        case UInt8(ascii: "\""): result.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): result.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "u"): try unicodeEscape(digits: 4, into: &result)
        case UInt8(ascii: "U"): try unicodeEscape(digits: 8, into: &result)
        default: throw error("invalid escape sequence in a string")
        }
    }

    private mutating func unicodeEscape(digits: Int, into result: inout [UInt8]) throws(TOMLError) {
        guard position + digits <= bytes.count,
              bytes[position..<position + digits].allSatisfy({ Self.isHexDigit($0) }),
              let value = UInt32(String(decoding: bytes[position..<position + digits], as: UTF8.self), radix: 16),
              let scalar = Unicode.Scalar(value)
        else { throw error("invalid Unicode escape in a string") }
        position += digits
        result.append(contentsOf: scalar.utf8)
    }

    private mutating func literalString() throws(TOMLError) -> String {
        position += 1  // opening quote
        let start = position
        while true {
            guard let byte = peek(), byte != UInt8(ascii: "\n") else { throw error("unterminated string") }
            if byte == UInt8(ascii: "'") { break }
            if Self.isControl(byte) { throw error("control character in a string") }
            position += 1
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        position += 1  // closing quote
        return text
    }

    private mutating func array() throws(TOMLError) -> TOMLValue {
        position += 1  // "["
        var elements: [TOMLValue] = []
        while true {
            try skipBlanksAndNewlines()
            if peek() == nil { throw error("unterminated array") }
            if peek() == UInt8(ascii: "]") { break }
            let element = try value()
            switch element {
            case .array: throw error("nested arrays are not supported")
            case .boolean: throw error("arrays may hold only strings or integers")
            case .string, .integer: break
            }
            if let first = elements.first, first.typeDescription != element.typeDescription {
                throw error("an array must hold values of one type")
            }
            elements.append(element)
            try skipBlanksAndNewlines()
            if peek() == UInt8(ascii: ",") {
                position += 1
            } else if peek() == UInt8(ascii: "]") {
                break
            } else {
                throw error("expected ',' or ']' in an array")
            }
        }
        position += 1  // "]"
        return .array(elements)
    }

    // MARK: - Bytes

    private func peek(_ offset: Int = 0) -> UInt8? {
        position + offset < bytes.count ? bytes[position + offset] : nil
    }

    private func error(_ message: String, at errorLine: Int? = nil) -> TOMLError {
        TOMLError(line: errorLine ?? line, message: message)
    }

    private static func isBareKeyByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    /// Characters that may form a boolean, a number, or a float or date to refuse.
    private static func isBareValueByte(_ byte: UInt8) -> Bool {
        isBareKeyByte(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
             UInt8(ascii: "A")...UInt8(ascii: "F"):
            return true
        default:
            return false
        }
    }

    /// Control characters TOML forbids in strings and comments (tab is allowed).
    private static func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09) || byte == 0x7F
    }
}
