/// A strict RFC 8259 parser over one message's bytes, building a `JSONDocument`.
///
/// Rejects everything RFC 8259 does not allow (leading zeros, `NaN`, single quotes,
/// trailing commas, raw control characters, invalid UTF-8, lone surrogate escapes,
/// trailing data) and, beyond the RFC, duplicate object keys and nesting deeper than
/// `maxDepth`. Recursion is bounded by `maxDepth`; memory by the input's length (at most
/// one node per input byte).
struct JSONParser {
    /// Up to this many members, an object's keys are checked for duplicates by
    /// comparing each with the earlier ones in place (no allocation: a call has a few
    /// keys); from then on against a set of decoded keys, so the check stays linear.
    static let inPlaceKeyCheckLimit = 16

    private let bytes: UnsafeRawBufferPointer
    private let maxDepth: Int
    private var position = 0
    private(set) var nodes: [JSONNode] = []

    init(bytes: UnsafeRawBufferPointer, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        // Room for a typical call's nodes at once, instead of growing 1, 2, 4, 8…;
        // a larger message grows the array from there.
        nodes.reserveCapacity(min(bytes.count / 2 + 1, 32))
    }

    /// Parses the whole input as one value surrounded by optional whitespace.
    mutating func parseDocument() throws(JSONError) {
        skipWhitespace()
        try parseValue(depth: 0)
        skipWhitespace()
        guard position == bytes.count else { throw JSONError(.trailingData, at: position) }
    }

    // MARK: Values

    private mutating func parseValue(depth: Int) throws(JSONError) {
        guard let byte = peek() else { throw JSONError(.unexpectedEnd, at: position) }
        switch byte {
        case UInt8(ascii: "{"): try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): _ = try parseString()
        case UInt8(ascii: "t"): try parseLiteral("true", kind: .bool, value: true)
        case UInt8(ascii: "f"): try parseLiteral("false", kind: .bool, value: false)
        case UInt8(ascii: "n"): try parseLiteral("null", kind: .null, value: false)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try parseNumber()
        default: throw JSONError(.unexpectedByte, at: position)
        }
    }

    private mutating func parseObject(depth: Int) throws(JSONError) {
        guard depth <= maxDepth else { throw JSONError(.tooDeep, at: position) }
        let start = position
        let index = nodes.count
        nodes.append(JSONNode(kind: .object, range: start..<start, index: index))
        position += 1
        var keys = Set<[UInt8]>()
        var count = 0
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            position += 1
        } else {
            while true {
                guard let byte = peek() else { throw JSONError(.unexpectedEnd, at: position) }
                guard byte == UInt8(ascii: "\"") else { throw JSONError(.unexpectedByte, at: position) }
                let keyOffset = position
                let keyIndex = try parseString()
                if count < Self.inPlaceKeyCheckLimit {
                    guard !hasEarlierKey(equalTo: keyIndex, inObjectAt: index) else {
                        throw JSONError(.duplicateKey, at: keyOffset)
                    }
                } else {
                    if count == Self.inPlaceKeyCheckLimit {
                        keys = earlierKeys(before: keyIndex, inObjectAt: index)
                    }
                    guard keys.insert(decodedKey(keyIndex)).inserted else {
                        throw JSONError(.duplicateKey, at: keyOffset)
                    }
                }
                skipWhitespace()
                try expect(UInt8(ascii: ":"))
                skipWhitespace()
                try parseValue(depth: depth)
                count += 1
                skipWhitespace()
                if try endOfContainer(UInt8(ascii: "}")) { break }
                skipWhitespace()
            }
        }
        finishContainer(at: index, kind: .object, start: start, count: count)
    }

    private mutating func parseArray(depth: Int) throws(JSONError) {
        guard depth <= maxDepth else { throw JSONError(.tooDeep, at: position) }
        let start = position
        let index = nodes.count
        nodes.append(JSONNode(kind: .array, range: start..<start, index: index))
        position += 1
        var count = 0
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            position += 1
        } else {
            while true {
                try parseValue(depth: depth)
                count += 1
                skipWhitespace()
                if try endOfContainer(UInt8(ascii: "]")) { break }
                skipWhitespace()
            }
        }
        finishContainer(at: index, kind: .array, start: start, count: count)
    }

    /// After a member or element: consumes `,` (returns false) or `close` (returns true).
    private mutating func endOfContainer(_ close: UInt8) throws(JSONError) -> Bool {
        guard let byte = peek() else { throw JSONError(.unexpectedEnd, at: position) }
        position += 1
        if byte == close { return true }
        if byte == UInt8(ascii: ",") { return false }
        throw JSONError(.unexpectedByte, at: position - 1)
    }

    private mutating func finishContainer(at index: Int, kind: JSONNode.Kind, start: Int, count: Int) {
        var node = JSONNode(kind: kind, range: start..<position, index: index)
        node.childCount = count
        node.subtreeEnd = nodes.count
        nodes[index] = node
    }

    private mutating func parseLiteral(_ word: StaticString, kind: JSONNode.Kind, value: Bool) throws(JSONError) {
        let start = position
        let length = word.utf8CodeUnitCount
        let expected = UnsafeRawBufferPointer(start: word.utf8Start, count: length)
        for offset in 0..<length {
            guard let byte = peek() else { throw JSONError(.unexpectedEnd, at: position) }
            guard byte == expected[offset] else { throw JSONError(.unexpectedByte, at: position) }
            position += 1
        }
        nodes.append(JSONNode(kind: kind, range: start..<position, flag: value, index: nodes.count))
    }

    // MARK: Numbers

    private mutating func parseNumber() throws(JSONError) {
        let start = position
        if peek() == UInt8(ascii: "-") { position += 1 }
        guard let first = peek() else { throw JSONError(.unexpectedEnd, at: position) }
        if first == UInt8(ascii: "0") {
            position += 1
            if let next = peek(), isDigit(next) { throw JSONError(.invalidNumber, at: position) }
        } else if isDigit(first) {
            skipDigits()
        } else {
            throw JSONError(.invalidNumber, at: position)
        }
        var isInteger = true
        if peek() == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            try requireDigits()
        }
        if let byte = peek(), byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { position += 1 }
            try requireDigits()
        }
        nodes.append(JSONNode(kind: .number, range: start..<position, flag: isInteger, index: nodes.count))
    }

    private mutating func requireDigits() throws(JSONError) {
        guard let byte = peek() else { throw JSONError(.unexpectedEnd, at: position) }
        guard isDigit(byte) else { throw JSONError(.invalidNumber, at: position) }
        skipDigits()
    }

    private mutating func skipDigits() {
        while let byte = peek(), isDigit(byte) { position += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    // MARK: Strings

    /// Validates a string and appends its node; returns the node's index.
    private mutating func parseString() throws(JSONError) -> Int {
        position += 1  // opening quote
        let start = position
        var hasEscapes = false
        while true {
            skipPlainASCII()
            guard let byte = peek() else { throw JSONError(.unexpectedEnd, at: position) }
            switch byte {
            case UInt8(ascii: "\""):
                let index = nodes.count
                nodes.append(JSONNode(kind: .string, range: start..<position, hasEscapes: hasEscapes, index: index))
                position += 1
                return index
            case UInt8(ascii: "\\"):
                hasEscapes = true
                try parseEscape()
            case 0x00..<0x20:
                throw JSONError(.controlCharacter, at: position)
            case 0x20..<0x80:
                position += 1
            default:
                try parseUTF8Sequence(lead: byte)
            }
        }
    }

    private mutating func parseEscape() throws(JSONError) {
        let escapeStart = position
        position += 1
        guard let byte = peek() else { throw JSONError(.unexpectedEnd, at: position) }
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
             UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            position += 1
        case UInt8(ascii: "u"):
            position += 1
            let unit = try parseHex4()
            if JSONUnescaper.isHighSurrogate(unit) {
                guard peek() == UInt8(ascii: "\\"), peek(at: position + 1) == UInt8(ascii: "u") else {
                    throw JSONError(.loneSurrogate, at: escapeStart)
                }
                position += 2
                guard JSONUnescaper.isLowSurrogate(try parseHex4()) else {
                    throw JSONError(.loneSurrogate, at: escapeStart)
                }
            } else if JSONUnescaper.isLowSurrogate(unit) {
                throw JSONError(.loneSurrogate, at: escapeStart)
            }
        default:
            throw JSONError(.invalidEscape, at: escapeStart)
        }
    }

    private mutating func parseHex4() throws(JSONError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard let byte = peek() else { throw JSONError(.unexpectedEnd, at: position) }
            guard let digit = JSONUnescaper.hexValue(byte) else { throw JSONError(.invalidEscape, at: position) }
            value = value << 4 | UInt16(digit)
            position += 1
        }
        return value
    }

    /// Well-formed UTF-8 per Unicode Table 3-7: no overlongs, no surrogates, ≤ U+10FFFF.
    private mutating func parseUTF8Sequence(lead: UInt8) throws(JSONError) {
        let start = position
        let secondRange: ClosedRange<UInt8>
        let continuationCount: Int
        switch lead {
        case 0xC2...0xDF: secondRange = 0x80...0xBF; continuationCount = 1
        case 0xE0: secondRange = 0xA0...0xBF; continuationCount = 2
        case 0xE1...0xEC, 0xEE...0xEF: secondRange = 0x80...0xBF; continuationCount = 2
        case 0xED: secondRange = 0x80...0x9F; continuationCount = 2
        case 0xF0: secondRange = 0x90...0xBF; continuationCount = 3
        case 0xF1...0xF3: secondRange = 0x80...0xBF; continuationCount = 3
        case 0xF4: secondRange = 0x80...0x8F; continuationCount = 3
        default: throw JSONError(.invalidUTF8, at: start)
        }
        position += 1
        for index in 0..<continuationCount {
            guard let byte = peek() else { throw JSONError(.unexpectedEnd, at: position) }
            let allowed: ClosedRange<UInt8> = index == 0 ? secondRange : 0x80...0xBF
            guard allowed.contains(byte) else { throw JSONError(.invalidUTF8, at: start) }
            position += 1
        }
    }

    // MARK: Duplicate keys

    /// Whether a key before `keyIndex` in the object at `object` decodes to the same
    /// bytes. Earlier members are complete, so their `subtreeEnd`s lead from key to key.
    private func hasEarlierKey(equalTo keyIndex: Int, inObjectAt object: Int) -> Bool {
        var earlier = object + 1
        while earlier < keyIndex {
            if keysEqual(earlier, keyIndex) { return true }
            earlier = nodes[earlier + 1].subtreeEnd
        }
        return false
    }

    /// The decoded keys before `keyIndex` in the object at `object`.
    private func earlierKeys(before keyIndex: Int, inObjectAt object: Int) -> Set<[UInt8]> {
        var keys = Set<[UInt8]>()
        var earlier = object + 1
        while earlier < keyIndex {
            keys.insert(decodedKey(earlier))
            earlier = nodes[earlier + 1].subtreeEnd
        }
        return keys
    }

    /// Whether two key nodes decode to the same bytes: compared in place when neither
    /// holds an escape, else decoded.
    private func keysEqual(_ first: Int, _ second: Int) -> Bool {
        let a = nodes[first]
        let b = nodes[second]
        if !a.hasEscapes && !b.hasEscapes {
            return UnsafeRawBufferPointer(rebasing: bytes[a.range]).hasSameBytes(as: UnsafeRawBufferPointer(rebasing: bytes[b.range]))
        }
        return decodedKey(first) == decodedKey(second)
    }

    /// The key's unescaped bytes, for duplicate detection. Keys are names, not secrets.
    private func decodedKey(_ index: Int) -> [UInt8] {
        let node = nodes[index]
        var key = [UInt8]()
        key.reserveCapacity(node.range.count)
        _ = JSONUnescaper.unescape(UnsafeRawBufferPointer(rebasing: bytes[node.range])) { byte in
            key.append(byte)
            return true
        }
        return key
    }

    // MARK: Bytes

    /// Moves past whole 8-byte words of printable ASCII other than `"` and `\\` (the
    /// bulk of every string in a call: names, keys, base64), testing eight bytes at once;
    /// stops before the word holding anything else, which the byte loop then reads.
    @inline(__always)
    private mutating func skipPlainASCII() {
        guard let base = bytes.baseAddress else { return }
        let end = bytes.count - 8
        var offset = position
        while offset <= end {
            let word = UInt64(littleEndian: (base + offset).loadUnaligned(as: UInt64.self))
            // A byte of `x` is zero exactly where `(x - ones) & ~x & highBits` has its bit
            // (no false positive below the first zero byte, so any hit stops the skip).
            let quote = word ^ 0x2222_2222_2222_2222
            let backslash = word ^ 0x5C5C_5C5C_5C5C_5C5C
            let special = ((quote &- 0x0101_0101_0101_0101) & ~quote)
                | ((backslash &- 0x0101_0101_0101_0101) & ~backslash)
                | (word &- 0x2020_2020_2020_2020)  // a control byte (below 0x20) borrows into its high bit
                | word                              // a byte of 0x80 or more has its high bit set
            if special & 0x8080_8080_8080_8080 != 0 { break }
            offset += 8
        }
        position = offset
    }

    private func peek() -> UInt8? {
        position < bytes.count ? bytes[position] : nil
    }

    private func peek(at offset: Int) -> UInt8? {
        offset < bytes.count ? bytes[offset] : nil
    }

    private mutating func expect(_ byte: UInt8) throws(JSONError) {
        guard let actual = peek() else { throw JSONError(.unexpectedEnd, at: position) }
        guard actual == byte else { throw JSONError(.unexpectedByte, at: position) }
        position += 1
    }

    private mutating func skipWhitespace() {
        while let byte = peek(),
              byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
            position += 1
        }
    }
}
