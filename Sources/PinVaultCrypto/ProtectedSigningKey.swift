/// A key kept open for a while (an unlock session): the secret half of a
/// `SigningKeyPair` in its own `sodium_malloc` buffer, made inaccessible
/// (`sodium_mprotect_noaccess`) except for the instant of each signature. Released, its
/// buffer is zeroed and unmapped (`SecretBytes`).
///
/// Not for concurrent use: `sign` opens the pages and closes them again, so two
/// threads signing at once could fault. Its owner (the engine's `SessionTable`)
/// signs under its lock.
public final class ProtectedSigningKey: @unchecked Sendable {
    private let keyPair: SigningKeyPair

    public var algorithm: KeyAlgorithm { keyPair.algorithm }
    /// The raw public key (not secret).
    public var publicKey: [UInt8] { keyPair.publicKey }

    /// Derives the key pair of `algorithm` from a 32-byte seed and closes its pages;
    /// the seed itself stays the caller's.
    public init(algorithm: KeyAlgorithm, seed: SecretBytes) throws(CryptoError) {
        keyPair = try SigningKeyPair(algorithm: algorithm, seed: seed)
        try keyPair.secretKey.protect(.noAccess)
    }

    /// The wire signature of exactly `message`. The key's pages are readable only
    /// while it signs.
    public func sign(_ message: UnsafeRawBufferPointer) throws(CryptoError) -> [UInt8] {
        try keyPair.secretKey.protect(.readOnly)
        defer { try? keyPair.secretKey.protect(.noAccess) }
        return try keyPair.sign(message)
    }

    /// The signature of a 32-byte digest (`SigningKeyPair.signDigest`).
    public func signDigest(_ digest: UnsafeRawBufferPointer) throws(CryptoError) -> [UInt8] {
        try keyPair.secretKey.protect(.readOnly)
        defer { try? keyPair.secretKey.protect(.noAccess) }
        return try keyPair.signDigest(digest)
    }
}
