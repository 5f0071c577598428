/// Writes a `CBORValue` in CTAP2's canonical form (CTAP 2.1 §8): integers and lengths in
/// the fewest bytes, definite lengths, and each map's keys sorted — by major type, then
/// the shorter encoding first, then bytewise. Maps nested in the value are sorted too.
public enum CBOREncoder {
    public static func encode(_ value: CBORValue) -> [UInt8] {
        var output: [UInt8] = []
        write(value, into: &output)
        return output
    }

    private static func head(_ major: UInt8, _ argument: UInt64, into output: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0..<24:
            output.append(type | UInt8(argument))
        case 24...0xff:
            output += [type | 24, UInt8(argument)]
        case 0x100...0xffff:
            output.append(type | 25)
            output += (0..<2).reversed().map { UInt8(truncatingIfNeeded: argument >> (8 * UInt64($0))) }
        case 0x1_0000...0xffff_ffff:
            output.append(type | 26)
            output += (0..<4).reversed().map { UInt8(truncatingIfNeeded: argument >> (8 * UInt64($0))) }
        default:
            output.append(type | 27)
            output += (0..<8).reversed().map { UInt8(truncatingIfNeeded: argument >> (8 * UInt64($0))) }
        }
    }

    private static func write(_ value: CBORValue, into output: inout [UInt8]) {
        switch value {
        case .unsigned(let n): head(0, n, into: &output)
        case .negative(let n): head(1, n, into: &output)
        case .bytes(let bytes):
            head(2, UInt64(bytes.count), into: &output)
            output += bytes
        case .text(let text):
            head(3, UInt64(text.utf8.count), into: &output)
            output += text.utf8
        case .array(let items):
            head(4, UInt64(items.count), into: &output)
            for item in items { write(item, into: &output) }
        case .map(let map):
            head(5, UInt64(map.count), into: &output)
            let sorted = map.entries
                .map { (key: encode($0.key), value: $0.value) }
                .sorted { canonicallyBefore($0.key, $1.key) }
            for entry in sorted {
                output += entry.key
                write(entry.value, into: &output)
            }
        case .bool(let flag): output.append(flag ? 0xf5 : 0xf4)
        case .null: output.append(0xf6)
        }
    }

    /// CTAP2's key order: lower major type first, then the shorter encoding, then bytewise.
    static func canonicallyBefore(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        let majorA = (a.first ?? 0) >> 5, majorB = (b.first ?? 0) >> 5
        if majorA != majorB { return majorA < majorB }
        if a.count != b.count { return a.count < b.count }
        return a.lexicographicallyPrecedes(b)
    }
}
