import CSodium

/// Ed25519 (RFC 8032) as libsodium implements it: `KeyAlgorithm.ed25519`'s entry.
public enum Ed25519 {
    /// `crypto_sign_PUBLICKEYBYTES`.
    public static let publicKeySize = 32
    /// `crypto_sign_BYTES`.
    public static let signatureSize = 64
    /// `crypto_sign_SECRETKEYBYTES`: libsodium's secret key is seed ‖ public key.
    static let secretKeySize = 64
    /// The DER SubjectPublicKeyInfo before the raw key (RFC 8410: id-Ed25519).
    static let spkiPrefix: [UInt8] = [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00]

    /// `crypto_sign_seed_keypair`: libsodium's secret key (seed ‖ public key) in secret
    /// memory, and the raw public key.
    static func keyPair(seed: SecretBytes) throws(CryptoError) -> (secret: SecretBytes, publicKey: [UInt8]) {
        let secretKey = try SecretBytes(zeroed: secretKeySize)
        var publicKey = [UInt8](repeating: 0, count: publicKeySize)
        let result = seed.withSodiumPointer { seedPointer in
            secretKey.withSodiumPointer { secretPointer in
                crypto_sign_seed_keypair(&publicKey, secretPointer, seedPointer)
            }
        }
        guard result == 0 else { throw CryptoError.signingFailed }
        return (secretKey, publicKey)
    }

    /// `crypto_sign_detached`: the 64-byte signature of exactly `message`.
    static func sign(_ message: UnsafeRawBufferPointer, secretKey: SecretBytes) throws(CryptoError) -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: signatureSize)
        var length: UInt64 = 0
        let result = Sodium.withInput(message) { pointer, count in
            secretKey.withSodiumPointer { secretPointer in
                crypto_sign_detached(&signature, &length, pointer, UInt64(count), secretPointer)
            }
        }
        guard result == 0, length == UInt64(signatureSize) else { throw CryptoError.signingFailed }
        return signature
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
