// CTAP 2.1 speaks CBOR, and PinVault reads it with this small codec of its own rather than
// a general CBOR library: a general decoder accepts what CTAP never sends (indefinite
// lengths, tags, floats, keys of any type, duplicate keys, nesting without end) and so
// widens what a peer can reach, and none of the mirror's packages is small, strict and
// without I/O. This one decodes the subset CTAP uses, refuses everything else with the
// status a CTAP authenticator answers, and encodes in CTAP2's canonical form. It does no
// I/O and knows no command: the authenticator reads its maps.

/// One CBOR data item of the subset CTAP uses: integers, byte and text strings, arrays,
/// maps (keys integers or text), booleans and null. No tags, no floats, no undefined.
public enum CBORValue: Hashable, Sendable {
    /// A non-negative integer (major type 0).
    case unsigned(UInt64)
    /// A negative integer (major type 1): the value is -1 - n.
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([CBORValue])
    /// A map, its entries in the order they were read or written; keys are unique.
    case map(CBORMap)
    case bool(Bool)
    case null

    /// An integer as CBOR holds it: `.unsigned` for n ≥ 0, `.negative` otherwise.
    public static func int(_ value: Int) -> CBORValue {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-(value + 1)))
    }

    /// The value as an `Int`, when it is an integer that fits one.
    public var intValue: Int? {
        switch self {
        case .unsigned(let n): return n <= UInt64(Int.max) ? Int(n) : nil
        case .negative(let n): return n <= UInt64(Int.max) ? -1 - Int(n) : nil
        default: return nil
        }
    }

    public var bytesValue: [UInt8]? {
        if case .bytes(let bytes) = self { return bytes }
        return nil
    }

    public var textValue: String? {
        if case .text(let text) = self { return text }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var arrayValue: [CBORValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    public var mapValue: CBORMap? {
        if case .map(let map) = self { return map }
        return nil
    }
}
