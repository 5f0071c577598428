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
    private let keyPair: SigningKeyPair

    /// The raw 32-byte public key (not secret).
    public var publicKey: [UInt8] { keyPair.publicKey }

    /// Derives the key pair of a 32-byte seed (`SigningKeyPair`) and closes its pages;
    /// the seed itself stays the caller's.
    public init(seed: SecretBytes) throws(CryptoError) {
        keyPair = try SigningKeyPair(seed: seed)
        try keyPair.secretKey.protect(.noAccess)
    }

    /// A detached 64-byte Ed25519 signature of exactly `message`. The key's pages are
    /// readable only while libsodium signs.
    public func sign(_ message: UnsafeRawBufferPointer) throws(CryptoError) -> [UInt8] {
        try keyPair.secretKey.protect(.readOnly)
        defer { try? keyPair.secretKey.protect(.noAccess) }
        return try keyPair.sign(message)
    }
}
