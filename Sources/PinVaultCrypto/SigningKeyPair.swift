/// A key pair of any `KeyAlgorithm`, made from a 32-byte seed: its secret half
/// (Ed25519: libsodium's 64-byte secret key; P-256: the 32-byte scalar) stays in secret
/// memory for the life of the value and is zeroed with it.
public struct SigningKeyPair: Sendable {
    public let algorithm: KeyAlgorithm
    /// The raw public key (`algorithm.publicKeySize` bytes).
    public let publicKey: [UInt8]
    /// The secret half (`ProtectedSigningKey` closes its pages).
    let secretKey: SecretBytes

    /// Derives the key pair of `algorithm` from a 32-byte seed.
    public init(algorithm: KeyAlgorithm, seed: SecretBytes) throws(CryptoError) {
        (secretKey, publicKey) = try algorithm.deriveKeyPair(seed: seed)
        self.algorithm = algorithm
    }

    /// The wire signature of exactly `message` (`KeyAlgorithm`: Ed25519's 64 bytes,
    /// P-256's DER of ECDSA over SHA-256(message)).
    public func sign(_ message: UnsafeRawBufferPointer) throws(CryptoError) -> [UInt8] {
        try algorithm.sign(message, secret: secretKey, publicKey: publicKey)
    }

    /// The signature of a caller's 32-byte SHA-256 `digest`, for an algorithm that
    /// `signsDigests`; `.signingFailed` for one that does not.
    public func signDigest(_ digest: UnsafeRawBufferPointer) throws(CryptoError) -> [UInt8] {
        try algorithm.signDigest(digest, secret: secretKey, publicKey: publicKey)
    }
}
