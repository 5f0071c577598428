import PinVaultCrypto

/// One parsed JSON message: a flat array of nodes over the caller's bytes.
///
/// The document does not copy the input: string values are byte ranges into it, decoded
/// only when asked, straight into the caller's destination. It is therefore valid only
/// while the bytes it was parsed from live and are unchanged; the daemon parses a frame,
/// decodes the parameters it needs into owned values, and only then zeroes the frame.
///
/// Numbers: any RFC 8259 number parses; `int64(_:)` answers only for numbers written as
/// integers (no fraction, no exponent) that fit in `Int64`. So `1.0`, `1e3` or
/// `99999999999999999999` are well-formed messages whose parameter is then refused as
/// `InvalidParameter`, not malformed frames that close the connection.
public struct JSONDocument {
    /// The bytes the document was parsed from.
    public let bytes: UnsafeRawBufferPointer
    /// All values, in pre-order; the root is node 0.
    public let nodes: [JSONNode]

    /// Parses `bytes` as exactly one JSON value. Never traps and never recurses deeper
    /// than `maxDepth`; memory grows at most linearly with `bytes.count`.
    public static func parse(
        _ bytes: UnsafeRawBufferPointer,
        maxDepth: Int = ProtocolLimits.maxJSONDepth
    ) throws(JSONError) -> JSONDocument {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        try parser.parseDocument()
        return JSONDocument(bytes: bytes, nodes: parser.nodes)
    }

    /// Index of the root value.
    public var root: Int { 0 }

    /// The node at `index`.
    public subscript(index: Int) -> JSONNode { nodes[index] }

    // MARK: Containers

    /// The (key, value) node indices of the object at `object`, in document order;
    /// empty when `object` is not an object.
    public func members(of object: Int) -> [(key: Int, value: Int)] {
        guard nodes.indices.contains(object), nodes[object].kind == .object else { return [] }
        var result: [(key: Int, value: Int)] = []
        result.reserveCapacity(nodes[object].childCount)
        var index = object + 1
        for _ in 0..<nodes[object].childCount {
            result.append((key: index, value: index + 1))
            index = nodes[index + 1].subtreeEnd
        }
        return result
    }

    /// The value of the member named `name` in the object at `object`, if any.
    public func member(_ name: String, of object: Int) -> Int? {
        guard nodes.indices.contains(object), nodes[object].kind == .object else { return nil }
        var index = object + 1
        for _ in 0..<nodes[object].childCount {
            if stringEquals(index, name) { return index + 1 }
            index = nodes[index + 1].subtreeEnd
        }
        return nil
    }

    /// The element node indices of the array at `array`; empty when it is not an array.
    public func elements(of array: Int) -> [Int] {
        guard nodes.indices.contains(array), nodes[array].kind == .array else { return [] }
        var result: [Int] = []
        result.reserveCapacity(nodes[array].childCount)
        var index = array + 1
        for _ in 0..<nodes[array].childCount {
            result.append(index)
            index = nodes[index].subtreeEnd
        }
        return result
    }

    // MARK: Scalars

    /// The value of a number written as an integer that fits in `Int64`; else nil.
    public func int64(_ index: Int) -> Int64? {
        let node = nodes[index]
        guard node.kind == .number, node.flag else { return nil }
        var digits = node.range
        let negative = bytes[digits.lowerBound] == UInt8(ascii: "-")
        if negative { digits = digits.dropFirst() }
        var magnitude: UInt64 = 0
        for offset in digits {
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(bytes[offset] - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            magnitude = sum
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { return nil }
        return Int64(magnitude)
    }

    /// The value of a `true`/`false` node; nil for any other kind.
    public func bool(_ index: Int) -> Bool? {
        let node = nodes[index]
        return node.kind == .bool ? node.flag : nil
    }

    /// Whether the node is `null`.
    public func isNull(_ index: Int) -> Bool {
        nodes[index].kind == .null
    }

    // MARK: Strings

    /// Feeds the decoded UTF-8 bytes of the string at `index` to `sink`; false when the
    /// node is not a string or the sink refused a byte.
    public func decodeString(_ index: Int, into sink: (UInt8) -> Bool) -> Bool {
        let node = nodes[index]
        guard node.kind == .string else { return false }
        let raw = UnsafeRawBufferPointer(rebasing: bytes[node.range])
        guard node.hasEscapes else {
            for byte in raw where !sink(byte) { return false }
            return true
        }
        return JSONUnescaper.unescape(raw, into: sink)
    }

    /// The decoded length in bytes of the string at `index`, without storing it.
    public func decodedLength(_ index: Int) -> Int {
        let node = nodes[index]
        guard node.kind == .string else { return 0 }
        guard node.hasEscapes else { return node.range.count }
        var count = 0
        _ = decodeString(index) { _ in
            count += 1
            return true
        }
        return count
    }

    /// The string at `index` as a Swift `String`; nil when it is not a string.
    /// Never use this for a secret: see `secret(_:)`.
    public func string(_ index: Int) -> String? {
        let node = nodes[index]
        guard node.kind == .string else { return nil }
        // The parser validated the UTF-8: without escapes, the bytes are the string.
        guard node.hasEscapes else {
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[node.range]), as: UTF8.self)
        }
        var utf8 = [UInt8]()
        utf8.reserveCapacity(node.range.count)
        guard decodeString(index, into: { utf8.append($0); return true }) else { return nil }
        return String(decoding: utf8, as: UTF8.self)
    }

    /// The string at `index` decoded straight into secret memory; nil when it is not a
    /// string. Capacity is the escaped length, an upper bound of the decoded one.
    public func secret(_ index: Int) throws(CryptoError) -> SecretBytes? {
        let node = nodes[index]
        guard node.kind == .string else { return nil }
        let secret = try SecretBytes(capacity: node.range.count)
        guard decodeString(index, into: { secret.append($0) }) else {
            secret.wipe()
            return nil
        }
        return secret
    }

    /// Whether the string at `index` decodes to exactly `name`'s UTF-8: for literal
    /// names (Varlink's top-level fields), compared in place without a `String`.
    public func stringEquals(_ index: Int, _ name: StaticString) -> Bool {
        let node = nodes[index]
        guard node.kind == .string else { return false }
        return name.withUTF8Buffer { expected in
            guard node.hasEscapes else {
                return node.range.count == expected.count
                    && UnsafeRawBufferPointer(rebasing: bytes[node.range]).hasSameBytes(as: UnsafeRawBufferPointer(expected))
            }
            var next = expected.makeIterator()
            let matched = decodeString(index) { byte in next.next() == byte }
            return matched && next.next() == nil
        }
    }

    /// Whether the string at `index` decodes to exactly `name`'s UTF-8.
    public func stringEquals(_ index: Int, _ name: String) -> Bool {
        let node = nodes[index]
        guard node.kind == .string else { return false }
        guard node.hasEscapes else {
            guard node.range.count == name.utf8.count else { return false }
            var name = name
            return name.withUTF8 { expected in
                UnsafeRawBufferPointer(rebasing: bytes[node.range]).hasSameBytes(as: UnsafeRawBufferPointer(expected))
            }
        }
        var expected = name.utf8.makeIterator()
        let matched = decodeString(index) { byte in expected.next() == byte }
        return matched && expected.next() == nil
    }
}
