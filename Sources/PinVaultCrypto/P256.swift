import CPinVaultOpenSSL
import CSodium

/// ECDSA over NIST P-256 with SHA-256: `KeyAlgorithm.p256`'s entry. The curve arithmetic
/// is the system's libcrypto (OpenSSL 3), never written here; what is PinVault's is the
/// private scalar's derivation from the sealed 32-byte seed, which docs/FORMAT.md gives
/// precisely enough for an independent implementation:
///
///     for counter in 0, 1, …, 255:
///         t = BLAKE2b-256(key = seed, message = "PinVault P-256 scalar v1" ‖ byte(counter))
///         if 1 ≤ t < n (t read as a big-endian integer): the scalar is t
///
/// (n the group order). A candidate is rejected with probability about 2⁻³², so the
/// first one is the scalar for all but one seed in four billion; no seed has been
/// found that needs more than two. The scalar lives only in `sodium_malloc`'d memory, and
/// an unlock session's only in libcrypto's secure heap (`HeldKey`).
public enum P256 {
    /// SEC1 uncompressed point: `04 ‖ x ‖ y`.
    public static let publicKeySize = 65
    /// A DER ECDSA-Sig-Value of two integers of up to 33 bytes: 2 + 2 × (2 + 33).
    public static let maxSignatureSize = 72
    /// The scalar and each coordinate.
    public static let scalarSize = 32
    /// The message of the derivation's BLAKE2b, before the counter byte.
    static let derivationLabel = Array("PinVault P-256 scalar v1".utf8)
    /// The group order n, big-endian.
    static let order: [UInt8] = [
        0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51,
    ]
    /// The DER SubjectPublicKeyInfo before the point (RFC 5480: id-ecPublicKey,
    /// prime256v1, a BIT STRING of 66 bytes).
    static let spkiPrefix: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a,
        0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ]

    /// The private scalar of a 32-byte seed (the derivation above), in secret memory.
    public static func scalar(seed: SecretBytes) throws(CryptoError) -> SecretBytes {
        guard seed.count == KeyAlgorithm.seedSize else { throw CryptoError.invalidLength("seed") }
        let candidate = try SecretBytes(zeroed: scalarSize)
        defer {
            // BLAKE2b loads its key block — the seed — into locals on this stack.
            sodium_stackzero(SeedSealer.stackScrubBytes)
        }
        for counter in 0...UInt8.max {
            let message = derivationLabel + [counter]
            try message.withUnsafeBytes { bytes in
                Result { () throws(CryptoError) in
                    try seed.withUnsafeBytes { (key) throws(CryptoError) in try BLAKE2b.hash(bytes, key: key, into: candidate) }
                }
            }.get()
            if candidate.withUnsafeBytes({ isScalar($0) }) { return candidate }
        }
        candidate.wipe()
        throw CryptoError.signingFailed
    }

    /// 1 ≤ `bytes` < n, big-endian, without a branch on the bytes.
    static func isScalar(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count == scalarSize else { return false }
        var borrow = 0
        var any: UInt8 = 0
        for index in stride(from: scalarSize - 1, through: 0, by: -1) {
            let difference = Int(bytes[index]) - Int(order[index]) - borrow
            borrow = (difference >> 8) & 1
            any |= bytes[index]
        }
        return borrow == 1 && any != 0
    }

    /// The scalar of `seed` and its public point.
    static func keyPair(seed: SecretBytes) throws(CryptoError) -> (secret: SecretBytes, publicKey: [UInt8]) {
        let scalar = try scalar(seed: seed)
        var point = [UInt8](repeating: 0, count: publicKeySize)
        let done = scalar.withSodiumPointer { CPinVaultOpenSSL_p256_public_key($0, &point) }
        guard done == 1 else { throw CryptoError.signingFailed }
        return (scalar, point)
    }

    /// A DER ECDSA-Sig-Value of SHA-256(`message`), or, `prehashed`, of `message` itself
    /// (a 32-byte digest), by the key of `scalar`, made for this one signature.
    static func sign(
        _ message: UnsafeRawBufferPointer, prehashed: Bool, scalar: SecretBytes, publicKey: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        guard scalar.count == scalarSize, publicKey.count == publicKeySize else {
            throw CryptoError.invalidLength("key")
        }
        return try signature(of: message, prehashed: prehashed) { data, count, der, capacity, length in
            scalar.withSodiumPointer { CPinVaultOpenSSL_p256_sign($0, prehashed ? 1 : 0, data, count, der, capacity, length) }
        }
    }

    /// The DER signature `sign` makes (1 for success) of SHA-256(`message`), or of
    /// `message` itself (a 32-byte digest) when `prehashed`; libcrypto hashes.
    static func signature(
        of message: UnsafeRawBufferPointer, prehashed: Bool,
        _ sign: (UnsafePointer<UInt8>, Int, UnsafeMutablePointer<UInt8>, Int, UnsafeMutablePointer<Int>) -> Int32
    ) throws(CryptoError) -> [UInt8] {
        guard !prehashed || message.count == KeyAlgorithm.digestSize else { throw CryptoError.invalidLength("digest") }
        var signature = [UInt8](repeating: 0, count: maxSignatureSize)
        var length = 0
        let done = Sodium.withInput(message) { data, count in
            signature.withUnsafeMutableBufferPointer { der in
                der.baseAddress.map { sign(data, count, $0, der.count, &length) } ?? 0
            }
        }
        guard done == 1, length <= signature.count else { throw CryptoError.signingFailed }
        signature.removeLast(signature.count - length)
        return signature
    }

    /// A P-256 key that libcrypto holds: its private key in libcrypto's secure heap
    /// (locked pages, left out of core dumps, cleared when freed), the scalar it was made
    /// from zeroed as soon as it is made. What an unlock session keeps, so that each
    /// signature costs only ECDSA; freed, with clearing, when the last reference goes.
    final class HeldKey: @unchecked Sendable {
        private let key: OpaquePointer
        /// The SEC1 uncompressed point.
        let publicKey: [UInt8]

        /// The key of `seed`'s scalar.
        init(seed: SecretBytes) throws(CryptoError) {
            let scalar = try P256.scalar(seed: seed)
            defer { scalar.wipe() }
            var point = [UInt8](repeating: 0, count: P256.publicKeySize)
            guard let key = scalar.withSodiumPointer({ CPinVaultOpenSSL_p256_key_new($0, &point) }) else {
                throw CryptoError.signingFailed
            }
            self.key = key
            publicKey = point
        }

        deinit {
            CPinVaultOpenSSL_p256_key_free(key)
        }

        /// As `P256.sign`.
        func sign(_ message: UnsafeRawBufferPointer, prehashed: Bool) throws(CryptoError) -> [UInt8] {
            try P256.signature(of: message, prehashed: prehashed) { data, count, der, capacity, length in
                CPinVaultOpenSSL_p256_key_sign(key, prehashed ? 1 : 0, data, count, der, capacity, length)
            }
        }
    }

    /// True only for a DER ECDSA-Sig-Value (`ECDSASignature`) of SHA-256(`message`) under
    /// the uncompressed point `publicKey`.
    static func verify(signature: [UInt8], message: UnsafeRawBufferPointer, publicKey: [UInt8]) -> Bool {
        guard publicKey.count == publicKeySize, publicKey.first == 0x04,
              let (r, s) = ECDSASignature.integers(der: signature, scalarSize: scalarSize)
        else { return false }
        return Sodium.withInput(message) { pointer, count in
            CPinVaultOpenSSL_ecdsa_verify("P-256", "SHA256", publicKey, publicKey.count, r, r.count, s, s.count, pointer, count)
        } == 1
    }
}
