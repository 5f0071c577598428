import PinVaultCrypto
import PinVaultStore

/// Every Argon2id run of the service goes through here, so that GetStats'
/// `kdfEvaluations` counts each one (an online guesser's real cost, DESIGN §5).
extension VaultService {
    /// Opens `sealed` with `pin`: one Argon2id evaluation.
    func openSeed(_ sealed: SealedSeed, pin: SecretBytes) throws(CryptoError) -> SecretBytes {
        stats.kdfEvaluated()
        return try SeedSealer.open(sealed, pin: pin, pepper: pepper)
    }

    /// Seals `seed` under `pin` with `settings.kdf`: one Argon2id evaluation.
    func sealSeed(_ seed: SecretBytes, pin: SecretBytes, ownerUid: UInt32, user: String, keyId: KeyID) throws(CryptoError) -> SealedSeed {
        stats.kdfEvaluated()
        return try SeedSealer.seal(
            seed: seed, pin: pin, pepper: pepper, ownerUid: ownerUid,
            user: user, keyId: keyId, parameters: settings.kdf
        )
    }
}
