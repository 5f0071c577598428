import PinVaultCrypto
@testable import PinVaultStore

/// Credential records sealed for real (SeedSealer, weak Argon2id for speed).
enum CredentialFixtures {
    /// Argon2id at libsodium's minimum: fast, for tests only.
    static let weakKDF = KDFParameters(opslimit: 1, memlimit: 8192)

    static let pepper: Pepper? = try? Pepper.generate()

    struct NoPepper: Error {}

    /// A fresh credential with its own seed and key pair, sealed under PIN 482915, in
    /// the format a new key is written in unless `formatVersion` says another (an
    /// earlier release's).
    static func record(
        ownerUid: UInt32 = 1000,
        user: String = "alice@example.com",
        label: String? = nil,
        purpose: KeyPurpose = .authenticate,
        algorithm: KeyAlgorithm = .ed25519,
        formatVersion: UInt8? = nil,
        createdAt: Int64 = 1_700_000_000
    ) throws -> CredentialRecord {
        let seed = try SecretBytes.random(count: 32)
        let keyPair = try SigningKeyPair(algorithm: algorithm, seed: seed)
        let keyId = try KeyID(publicKey: keyPair.publicKey)
        guard let pepper else { throw NoPepper() }
        let sealed = try SeedSealer.seal(
            seed: seed, pin: try pin(), pepper: pepper, purpose: purpose, algorithm: algorithm, formatVersion: formatVersion, ownerUid: ownerUid, user: user,
            keyId: keyId, parameters: weakKDF)
        return CredentialRecord(sealed: sealed, label: label, publicKey: keyPair.publicKey, createdAt: createdAt)
    }

    /// `record` re-sealed under a fresh salt and nonce (as ChangePin does), with every
    /// mutable field changed, so that no column of the two versions is equal except the
    /// identity (key id, owner, user, public key, created at).
    static func changed(_ record: CredentialRecord, seed: SecretBytes? = nil) throws -> CredentialRecord {
        var copy = record
        copy.sealed.header.salt = RandomBytes.make(count: RecordHeader.saltSize)
        copy.sealed.header.kdf = KDFParameters(opslimit: 2, memlimit: 16384)
        copy.sealed.nonce = RandomBytes.make(count: SealedSeed.nonceSize)
        copy.sealed.ciphertext = RandomBytes.make(count: SealedSeed.ciphertextSize)
        copy.label = (record.label ?? "") + " (changed)"
        copy.lastUsedAt = (record.lastUsedAt ?? 0) + 60
        copy.failedAttempts = record.failedAttempts + 3
        copy.lockedUntil = (record.lockedUntil ?? 0) + 90
        copy.pendingUnregistration = PendingUnregistration(
            tokenHash: RandomBytes.make(count: 32), expiresAt: (record.pendingUnregistration?.expiresAt ?? 0) + 300)
        return copy
    }

    static func pin() throws -> SecretBytes {
        try Array("482915".utf8).withUnsafeBytes { try SecretBytes(copying: $0) }
    }
}
