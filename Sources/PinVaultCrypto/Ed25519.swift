import CSodium

/// Ed25519 (RFC 8032) as libsodium implements it: fresh seeds and signature checks.
/// Signing lives in `SigningKeyPair`, which owns the secret key.
public enum Ed25519 {
    /// `crypto_sign_SEEDBYTES`.
    public static let seedSize = 32
    /// `crypto_sign_PUBLICKEYBYTES`.
    public static let publicKeySize = 32
    /// `crypto_sign_BYTES`.
    public static let signatureSize = 64
    /// `crypto_sign_SECRETKEYBYTES`: libsodium's secret key is seed ‖ public key.
    static let secretKeySize = 64

    /// 32 bytes from `randombytes_buf`, in secret memory.
    public static func generateSeed() throws(CryptoError) -> SecretBytes {
        try SecretBytes.random(count: seedSize)
    }

    /// `crypto_sign_verify_detached`: true only when `signature` is a valid Ed25519
    /// signature of exactly `message` under `publicKey`. Wrong sizes give false.
    public static func verify(
        signature: [UInt8],
        message: UnsafeRawBufferPointer,
        publicKey: [UInt8]
    ) -> Bool {
        guard signature.count == signatureSize, publicKey.count == publicKeySize else { return false }
        guard (try? Sodium.ensureInitialized()) != nil else { return false }
        let result = Sodium.withInput(message) { pointer, length in
            crypto_sign_verify_detached(signature, pointer, UInt64(length), publicKey)
        }
        return result == 0
    }
}
