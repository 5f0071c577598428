import CSodium

/// An Ed25519 key pair made from a seed with `crypto_sign_seed_keypair`. The 64-byte
/// secret key stays in secret memory for the life of the value and is zeroed with it.
public struct SigningKeyPair: Sendable {
    /// The raw 32-byte public key.
    public let publicKey: [UInt8]
    /// libsodium's secret key: seed ‖ public key (`ProtectedSigningKey` closes its pages).
    let secretKey: SecretBytes

    /// Derives the key pair of a 32-byte seed.
    public init(seed: SecretBytes) throws(CryptoError) {
        guard seed.count == Ed25519.seedSize else { throw CryptoError.invalidLength("seed") }
        let secretKey = try SecretBytes(zeroed: Ed25519.secretKeySize)
        var publicKey = [UInt8](repeating: 0, count: Ed25519.publicKeySize)
        let result = seed.withSodiumPointer { seedPointer in
            secretKey.withSodiumPointer { secretPointer in
                crypto_sign_seed_keypair(&publicKey, secretPointer, seedPointer)
            }
        }
        guard result == 0 else { throw CryptoError.signingFailed }
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// A detached 64-byte Ed25519 signature of exactly `message`.
    public func sign(_ message: UnsafeRawBufferPointer) throws(CryptoError) -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: Ed25519.signatureSize)
        var length: UInt64 = 0
        let result = Sodium.withInput(message) { pointer, count in
            secretKey.withSodiumPointer { secretPointer in
                crypto_sign_detached(&signature, &length, pointer, UInt64(count), secretPointer)
            }
        }
        guard result == 0, length == UInt64(Ed25519.signatureSize) else {
            throw CryptoError.signingFailed
        }
        return signature
    }
}
