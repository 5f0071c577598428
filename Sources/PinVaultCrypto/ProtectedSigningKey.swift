import CSodium

/// An Ed25519 key kept open for a while (an unlock session): libsodium's 64-byte
/// secret key (seed ‖ public key) in its own `sodium_malloc` buffer, made
/// inaccessible (`sodium_mprotect_noaccess`) except for the instant of each
/// signature. Released, its buffer is zeroed and unmapped (`SecretBytes`).
///
/// Not for concurrent use: `sign` opens the pages and closes them again, so two
/// threads signing at once could fault. Its owner (the engine's `SessionTable`)
/// signs under its lock.
public final class ProtectedSigningKey: @unchecked Sendable {
    /// The raw 32-byte public key (not secret).
    public let publicKey: [UInt8]
    private let secretKey: SecretBytes

    /// Derives the key pair of a 32-byte seed (`crypto_sign_seed_keypair`) straight
    /// into protected memory; the seed itself stays the caller's.
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
        try secretKey.protect(.noAccess)
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// A detached 64-byte Ed25519 signature of exactly `message`. The key's pages are
    /// readable only while libsodium signs.
    public func sign(_ message: UnsafeRawBufferPointer) throws(CryptoError) -> [UInt8] {
        try secretKey.protect(.readOnly)
        defer { try? secretKey.protect(.noAccess) }
        var signature = [UInt8](repeating: 0, count: Ed25519.signatureSize)
        var length: UInt64 = 0
        let result = Sodium.withInput(message) { pointer, count in
            secretKey.withSodiumPointer { secretPointer in
                crypto_sign_detached(&signature, &length, pointer, UInt64(count), secretPointer)
            }
        }
        guard result == 0, length == UInt64(Ed25519.signatureSize) else { throw CryptoError.signingFailed }
        return signature
    }
}
