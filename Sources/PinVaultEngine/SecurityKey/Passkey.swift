import PinVaultCrypto

/// What the passkey door gets back from the engine: data a relying party reads, never a
/// secret.
public enum Passkey {
    /// A passkey made (MakeCredential): its credential id, its key's algorithm, the
    /// authenticator data (with the attested credential data: AAGUID, credential id,
    /// COSE key) and the self-attestation signature over it and the client data hash
    /// (`packed`, no certificate).
    public struct Made: Sendable, Equatable {
        public let credentialId: [UInt8]
        public let algorithm: KeyAlgorithm
        public let publicKey: [UInt8]
        public let authenticatorData: [UInt8]
        public let signature: [UInt8]
    }

    /// One passkey's assertion (GetAssertion, GetNextAssertion).
    public struct Assertion: Sendable, Equatable {
        public let credentialId: [UInt8]
        public let userHandle: [UInt8]
        public let userName: String?
        public let displayName: String?
        public let authenticatorData: [UInt8]
        public let signature: [UInt8]
    }

    /// This authenticator's AAGUID: fixed, the same on every machine (it names the
    /// kind of authenticator, not the machine; docs/WEBAUTHN.md).
    public static let aaguid: [UInt8] = [
        0x61, 0x49, 0x82, 0xc7, 0x80, 0x05, 0x18, 0xa3, 0x64, 0x5e, 0x1a, 0x8e, 0x5d, 0x30, 0xf0, 0x65,
    ]

    /// The most passkeys one uid holds.
    public static let maximumPerUid = 256
    /// The most assertions one GetAssertion answers (the rest are not offered).
    public static let maximumAssertions = 16
}
