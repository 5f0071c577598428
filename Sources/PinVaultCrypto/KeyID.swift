/// A credential's public identifier: the first 16 bytes of the unkeyed BLAKE2b-256 of
/// its raw public key (`KeyAlgorithm`), written as 32 lowercase hex digits.
public struct KeyID: Hashable, Sendable, Comparable {
    /// The 16 raw bytes.
    public let bytes: [UInt8]

    /// Wraps 16 raw bytes; `nil` for any other length.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses exactly 32 lowercase hex digits; `nil` for anything else.
    public init?(hex: some StringProtocol) {
        let utf8 = Array(hex.utf8)
        guard utf8.count == 32 else { return nil }
        var raw = [UInt8]()
        raw.reserveCapacity(16)
        var index = 0
        while index < 32 {
            guard let high = Self.nibble(utf8[index]), let low = Self.nibble(utf8[index + 1]) else {
                return nil
            }
            raw.append(high << 4 | low)
            index += 2
        }
        self.bytes = raw
    }

    /// 32 lowercase hex digits.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(32)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func < (lhs: KeyID, rhs: KeyID) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}

extension KeyID: CustomStringConvertible {
    public var description: String { hex }
}
