/// What a passkey signs (WebAuthn §6.1, §6.3.3): authenticatorData ‖ clientDataHash, the
/// authenticator data being
///
///     rpIdHash (32) ‖ flags (1) ‖ signCount (4, big-endian) ‖ [attestedCredentialData]
///
/// This authenticator writes no extensions, so the flags never hold ED (0x80); an
/// assertion holds no attested credential data (AT, 0x40) and is exactly 69 bytes; a
/// self-attested registration holds it (AAGUID, credential id, COSE key) and is longer.
/// UP (0x01) or UV (0x04) is always set; the reserved bits (0x02, 0x08, 0x10, 0x20) never.
public enum WebAuthnSignedData {
    public static let rpIdHashSize = 32
    public static let clientDataHashSize = 32
    /// rpIdHash ‖ flags ‖ signCount.
    public static let authenticatorDataMinimumSize = 37

    public enum Flag {
        public static let userPresent: UInt8 = 0x01
        public static let userVerified: UInt8 = 0x04
        public static let attestedCredentialData: UInt8 = 0x40
        public static let extensionData: UInt8 = 0x80
    }

    /// Whether `message` is laid out as WebAuthn's signed data, as this authenticator
    /// writes it.
    public static func isSignedData(_ message: [UInt8]) -> Bool {
        let minimum = authenticatorDataMinimumSize + clientDataHashSize
        guard message.count >= minimum else { return false }
        let flags = message[rpIdHashSize]
        guard flags & (Flag.userPresent | Flag.userVerified) != 0, flags & 0x3a == 0, flags & Flag.extensionData == 0 else {
            return false
        }
        if flags & Flag.attestedCredentialData == 0 { return message.count == minimum }
        // AAGUID (16) ‖ credential id length (2) ‖ credential id ‖ COSE key, at least.
        return message.count > minimum + 18
    }

    /// The authenticator data of an assertion: the passkey's rp id hash, the flags, and
    /// the signature counter.
    public static func assertionData(rpIdHash: [UInt8], flags: UInt8, signCount: UInt32) -> [UInt8] {
        rpIdHash + [flags] + withUnsafeBytes(of: signCount.bigEndian, Array.init)
    }
}
