/// A CBOR map whose keys are integers or text, as CTAP's are. Entries keep their order;
/// a key appears once (the decoder refuses a duplicate, `set` replaces). The encoder
/// writes the entries in CTAP2's canonical order whatever their order here.
public struct CBORMap: Hashable, Sendable {
    public private(set) var entries: [(key: CBORValue, value: CBORValue)] = []

    public init() {}

    public init(_ pairs: [(CBORValue, CBORValue)]) {
        for (key, value) in pairs { set(key, value) }
    }

    public var count: Int { entries.count }

    public subscript(key: CBORValue) -> CBORValue? {
        entries.first { $0.key == key }?.value
    }

    public subscript(key: Int) -> CBORValue? { self[.int(key)] }

    public subscript(key: String) -> CBORValue? { self[.text(key)] }

    public mutating func set(_ key: CBORValue, _ value: CBORValue) {
        if let index = entries.firstIndex(where: { $0.key == key }) {
            entries[index].value = value
        } else {
            entries.append((key, value))
        }
    }

    public mutating func set(_ key: Int, _ value: CBORValue) { set(.int(key), value) }

    public mutating func set(_ key: String, _ value: CBORValue) { set(.text(key), value) }

    /// Appends without looking for the key: the decoder's, which checks duplicates itself.
    mutating func appendUnchecked(_ key: CBORValue, _ value: CBORValue) {
        entries.append((key, value))
    }

    public static func == (lhs: CBORMap, rhs: CBORMap) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.entries.allSatisfy { rhs[$0.key] == $0.value }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
    }
}
