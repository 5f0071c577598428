/// A key kept open for a while (an unlock session), its secret where nothing else
/// reaches it:
/// - Ed25519: libsodium's secret key (`SigningKeyPair`) in its own `sodium_malloc`
///   buffer, made inaccessible (`sodium_mprotect_noaccess`) except for the instant of
///   each signature; released, the buffer is zeroed and unmapped (`SecretBytes`).
/// - P-256: libcrypto's key (`P256.HeldKey`), its private key in libcrypto's secure heap
///   (locked pages between guard pages, left out of core dumps, cleared when freed); the
///   scalar it was made from is zeroed at once. libcrypto signs with it in place, so a
///   signature pays for no key made and freed and no page protection change. Those
///   pages stay readable: they are libcrypto's arena, shared with its other secrets.
///
/// Not for concurrent use: an Ed25519 `sign` opens the pages and closes them again, so
/// two threads signing at once could fault. Its owner (the engine's `SessionTable`)
/// signs under its lock.
public final class ProtectedSigningKey: @unchecked Sendable {
    private enum Secret {
        case closedPages(SigningKeyPair)
        case libcrypto(P256.HeldKey)
    }

    private let secret: Secret
    public let algorithm: KeyAlgorithm
    /// The raw public key (not secret).
    public let publicKey: [UInt8]

    /// Derives the key of `algorithm` from a 32-byte seed and puts its secret away; the
    /// seed itself stays the caller's.
    public init(algorithm: KeyAlgorithm, seed: SecretBytes) throws(CryptoError) {
        guard seed.count == KeyAlgorithm.seedSize else { throw CryptoError.invalidLength("seed") }
        switch algorithm {
        case .ed25519:
            let keyPair = try SigningKeyPair(algorithm: algorithm, seed: seed)
            try keyPair.secretKey.protect(.noAccess)
            secret = .closedPages(keyPair)
            publicKey = keyPair.publicKey
        case .p256:
            let key = try P256.HeldKey(seed: seed)
            secret = .libcrypto(key)
            publicKey = key.publicKey
        }
        self.algorithm = algorithm
    }

    /// The wire signature of exactly `message`.
    public func sign(_ message: UnsafeRawBufferPointer) throws(CryptoError) -> [UInt8] {
        switch secret {
        case .closedPages(let keyPair):
            try keyPair.secretKey.protect(.readOnly)
            defer { try? keyPair.secretKey.protect(.noAccess) }
            return try keyPair.sign(message)
        case .libcrypto(let key):
            return try key.sign(message, prehashed: false)
        }
    }

    /// The signature of a 32-byte digest (`SigningKeyPair.signDigest`).
    public func signDigest(_ digest: UnsafeRawBufferPointer) throws(CryptoError) -> [UInt8] {
        switch secret {
        case .closedPages(let keyPair):
            try keyPair.secretKey.protect(.readOnly)
            defer { try? keyPair.secretKey.protect(.noAccess) }
            return try keyPair.signDigest(digest)
        case .libcrypto(let key):
            return try key.sign(digest, prehashed: true)
        }
    }
}
