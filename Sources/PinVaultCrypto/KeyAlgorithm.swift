/// The signature algorithms a credential's key may have, and everything that differs
/// between them, in one table (in the spirit of OpenSSH's `struct sshkey_impl`): sizes,
/// the key derived from the sealed 32-byte seed, signing, verifying, and the encodings
/// other programs read. Chosen at Register, sealed into the record's header (format 3),
/// never changed. No other code knows a key's or a signature's size: it asks this table.
///
/// The SSH encodings (key blob, signature blob, certificate type) are the same table's,
/// kept in PinVaultSSHProtocol (`KeyAlgorithm+SSH.swift`), an exhaustive switch there;
/// the PKCS#11 attributes (`CKA_EC_PARAMS`, `CKA_EC_POINT`) are the C module's, whose
/// bytes docs/PKCS11.md gives. docs/FORMAT.md gives each stored byte; docs/ARCHITECTURE.md
/// names the files a third algorithm touches.
public enum KeyAlgorithm: String, CaseIterable, Hashable, Sendable {
    /// Ed25519 (RFC 8032), libsodium's: the seed is the RFC's private key. Register's default.
    case ed25519
    /// ECDSA over NIST P-256 with SHA-256, the system's libcrypto's: the private scalar is
    /// derived from the seed (`P256.scalar(seed:)`).
    case p256

    /// What Register gives a key when the caller names no algorithm, and what records of
    /// formats 1 and 2 (which hold no algorithm byte) are.
    public static let `default` = KeyAlgorithm.ed25519

    /// The size of the secret every key is made from, sealed at rest: 32 random bytes.
    public static let seedSize = 32

    /// 32 bytes from `randombytes_buf`, in secret memory: the seed of a new key of any algorithm.
    public static func generateSeed() throws(CryptoError) -> SecretBytes {
        try SecretBytes.random(count: seedSize)
    }

    /// The name on the wire (`algorithm` in Varlink, the store's `algorithm` column).
    public var name: String { rawValue }

    /// The byte record format 3 seals into the header (docs/FORMAT.md).
    public var headerByte: UInt8 {
        switch self {
        case .ed25519: 1
        case .p256: 2
        }
    }

    /// The raw public key's size: Ed25519's 32 bytes; P-256's SEC1 uncompressed point,
    /// `04 ‖ x ‖ y`, 65 bytes.
    public var publicKeySize: Int {
        switch self {
        case .ed25519: Ed25519.publicKeySize
        case .p256: P256.publicKeySize
        }
    }

    /// The longest signature on the wire: Ed25519's 64 bytes; P-256's DER
    /// ECDSA-Sig-Value, at most 72 bytes (shorter when r or s is).
    public var maxSignatureSize: Int {
        switch self {
        case .ed25519: Ed25519.signatureSize
        case .p256: P256.maxSignatureSize
        }
    }

    /// The largest `publicKeySize` of any algorithm: what a column or buffer holding
    /// any key must hold.
    public static let maxPublicKeySize = allCases.map(\.publicKeySize).max() ?? 0
    /// The largest `maxSignatureSize` of any algorithm.
    public static let maxSignatureSize = allCases.map(\.maxSignatureSize).max() ?? 0

    /// Whether `publicKey` is a well-formed raw public key of this algorithm (its size;
    /// for P-256 also that it is an uncompressed point).
    public func isWellFormed(publicKey: [UInt8]) -> Bool {
        switch self {
        case .ed25519: publicKey.count == Ed25519.publicKeySize
        case .p256: publicKey.count == P256.publicKeySize && publicKey.first == 0x04
        }
    }

    /// The key pair of `seed` (32 bytes): the secret half in secret memory.
    func deriveKeyPair(seed: SecretBytes) throws(CryptoError) -> (secret: SecretBytes, publicKey: [UInt8]) {
        guard seed.count == Self.seedSize else { throw CryptoError.invalidLength("seed") }
        switch self {
        case .ed25519: return try Ed25519.keyPair(seed: seed)
        case .p256: return try P256.keyPair(seed: seed)
        }
    }

    /// The wire signature of exactly `message` by the secret of `deriveKeyPair`.
    func sign(
        _ message: UnsafeRawBufferPointer, secret: SecretBytes, publicKey: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        switch self {
        case .ed25519: try Ed25519.sign(message, secretKey: secret)
        case .p256: try P256.sign(message, prehashed: false, scalar: secret, publicKey: publicKey)
        }
    }

    /// Whether this algorithm signs a caller's digest (`SigningKeyPair.signDigest`): P-256
    /// signs a SHA-256 digest as ECDSA does; Ed25519 signs only whole messages (its
    /// hash is part of the algorithm, RFC 8032 §5.1.6).
    public var signsDigests: Bool {
        switch self {
        case .ed25519: false
        case .p256: true
        }
    }

    /// The size of the digest `signDigest` takes, for an algorithm that `signsDigests`.
    public static let digestSize = SHA256.digestSize

    func signDigest(
        _ digest: UnsafeRawBufferPointer, secret: SecretBytes, publicKey: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        switch self {
        case .ed25519: throw CryptoError.signingFailed
        case .p256: try P256.sign(digest, prehashed: true, scalar: secret, publicKey: publicKey)
        }
    }

    /// True only when `signature` (the wire form) is a valid signature of exactly
    /// `message` under `publicKey` (raw). Wrong sizes and malformed encodings give false.
    public func verify(signature: [UInt8], message: UnsafeRawBufferPointer, publicKey: [UInt8]) -> Bool {
        switch self {
        case .ed25519: Ed25519.verify(signature: signature, message: message, publicKey: publicKey)
        case .p256: P256.verify(signature: signature, message: message, publicKey: publicKey)
        }
    }

    /// The DER SubjectPublicKeyInfo of a raw public key (RFC 8410 for Ed25519; RFC 5480,
    /// id-ecPublicKey with prime256v1, for P-256): what OpenSSL, X.509 and PKCS#11
    /// programs read.
    public func subjectPublicKeyInfo(publicKey: [UInt8]) -> [UInt8] {
        switch self {
        case .ed25519: Ed25519.spkiPrefix + publicKey
        case .p256: P256.spkiPrefix + publicKey
        }
    }

    /// The COSE algorithm identifier (RFC 9053): -8 EdDSA, -7 ES256.
    public var coseAlgorithm: Int {
        switch self {
        case .ed25519: -8
        case .p256: -7
        }
    }

    /// The COSE_Key of a raw public key (RFC 9053), as CTAP2 writes it (canonical CBOR,
    /// keys in the order 1, 3, -1, -2, -3): OKP {1: 1, 3: -8, -1: 6 (Ed25519), -2: x};
    /// EC2 {1: 2, 3: -7, -1: 1 (P-256), -2: x, -3: y}.
    public func coseKey(publicKey: [UInt8]) -> [UInt8] {
        switch self {
        case .ed25519:
            return [0xa4, 0x01, 0x01, 0x03, 0x27, 0x20, 0x06, 0x21, 0x58, 0x20] + publicKey
        case .p256:
            return [0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20] + publicKey[1..<33]
                + [0x22, 0x58, 0x20] + publicKey[33..<65]
        }
    }
}
