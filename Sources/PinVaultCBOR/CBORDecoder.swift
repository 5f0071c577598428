/// Reads one CBOR data item from a message, strictly (see `CBORValue`): definite lengths
/// only, nesting at most `CBORLimits.maximumDepth`, every length checked against the bytes
/// left before anything is allocated, map keys integers or text and each key once, text
/// valid UTF-8, and nothing after the item. Integers may be encoded longer than needed
/// and map keys in any order (CTAP lets an authenticator accept both; clients send
/// canonical CBOR). Every refusal is a `CBORError`; no input traps.
public struct CBORDecoder {
    private let bytes: [UInt8]
    private var offset = 0

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The one item `message` holds.
    public static func decode(_ message: [UInt8]) throws(CBORError) -> CBORValue {
        guard message.count <= CBORLimits.maximumMessageSize else { throw .invalidLength }
        var decoder = CBORDecoder(message)
        let value = try decoder.item(depth: 0)
        guard decoder.offset == message.count else { throw .invalidCBOR }
        return value
    }

    /// The one item `message` holds, which must be a map (a CTAP command's parameters).
    public static func decodeMap(_ message: [UInt8]) throws(CBORError) -> CBORMap {
        guard case .map(let map) = try decode(message) else { throw .unexpectedType }
        return map
    }

    private var remaining: Int { bytes.count - offset }

    private mutating func byte() throws(CBORError) -> UInt8 {
        guard offset < bytes.count else { throw .invalidCBOR }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// The argument of an item's head: the low five bits, or the 1, 2, 4 or 8 bytes
    /// they announce. 28–30 are reserved and 31 is an indefinite length: refused.
    private mutating func argument(_ info: UInt8) throws(CBORError) -> UInt64 {
        let width: Int
        switch info {
        case 0...23: return UInt64(info)
        case 24: width = 1
        case 25: width = 2
        case 26: width = 4
        case 27: width = 8
        default: throw .invalidCBOR
        }
        guard remaining >= width else { throw .invalidCBOR }
        var value: UInt64 = 0
        for _ in 0..<width { value = value << 8 | UInt64(bytes[offset]); offset += 1 }
        return value
    }

    /// A length or count that must fit in what is left, each element taking at least
    /// `minimumSize` bytes: checked before anything is allocated for it.
    private mutating func count(_ info: UInt8, minimumSize: Int) throws(CBORError) -> Int {
        let value = try argument(info)
        guard value <= UInt64(remaining / minimumSize) else { throw .invalidCBOR }
        return Int(value)
    }

    private mutating func item(depth: Int) throws(CBORError) -> CBORValue {
        let head = try byte()
        let info = head & 0x1f
        switch head >> 5 {
        case 0:
            return .unsigned(try argument(info))
        case 1:
            return .negative(try argument(info))
        case 2:
            let length = try count(info, minimumSize: 1)
            defer { offset += length }
            return .bytes(Array(bytes[offset..<offset + length]))
        case 3:
            let length = try count(info, minimumSize: 1)
            defer { offset += length }
            guard let text = String(validating: bytes[offset..<offset + length], as: UTF8.self) else {
                throw .invalidCBOR
            }
            return .text(text)
        case 4:
            guard depth < CBORLimits.maximumDepth else { throw .invalidCBOR }
            let n = try count(info, minimumSize: 1)
            var items: [CBORValue] = []
            items.reserveCapacity(n)
            for _ in 0..<n { items.append(try item(depth: depth + 1)) }
            return .array(items)
        case 5:
            guard depth < CBORLimits.maximumDepth else { throw .invalidCBOR }
            let n = try count(info, minimumSize: 2)
            var map = CBORMap()
            var keys = Set<CBORValue>()
            for _ in 0..<n {
                let key = try item(depth: depth + 1)
                switch key {
                case .unsigned, .negative, .text: break
                default: throw .invalidCBOR
                }
                guard keys.insert(key).inserted else { throw .invalidCBOR }
                map.appendUnchecked(key, try item(depth: depth + 1))
            }
            return .map(map)
        case 6:
            throw .invalidCBOR  // tags: CTAP uses none
        default:
            switch info {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22: return .null
            default: throw .invalidCBOR  // undefined, other simple values, floats, break
            }
        }
    }
}
