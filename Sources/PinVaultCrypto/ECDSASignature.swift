/// An ECDSA signature's DER encoding (ECDSA-Sig-Value, RFC 3279 §2.2.3:
/// `SEQUENCE { r INTEGER, s INTEGER }`), what PinVault puts on the Varlink wire and what
/// WebAuthn, X.509 and OpenSSL read. Read strictly: the only encoding of a pair is
/// accepted (definite short lengths, minimal positive integers, nothing after).
public enum ECDSASignature {
    /// The contents of r's and s's INTEGERs (minimal two's complement, so a leading 00
    /// when the top bit is set: byte for byte the `mpint` SSH writes), each 1 to
    /// `scalarSize` + 1 bytes and neither zero; nil for anything else.
    public static func integers(der: [UInt8], scalarSize: Int) -> (r: [UInt8], s: [UInt8])? {
        guard der.count >= 8, der[0] == 0x30, Int(der[1]) == der.count - 2, der[1] < 0x80 else { return nil }
        var index = 2
        func integer() -> [UInt8]? {
            guard index + 2 <= der.count, der[index] == 0x02 else { return nil }
            let length = Int(der[index + 1])
            let start = index + 2
            guard length >= 1, length <= scalarSize + 1, start + length <= der.count else { return nil }
            let value = Array(der[start..<start + length])
            // Negative, or a leading 00 the next byte did not need, or zero.
            guard value[0] & 0x80 == 0, !(value.count > 1 && value[0] == 0 && value[1] & 0x80 == 0),
                  value != [0]
            else { return nil }
            index = start + length
            return value
        }
        guard let r = integer(), let s = integer(), index == der.count else { return nil }
        return (r, s)
    }
}
