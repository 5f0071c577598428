import PinVaultCrypto
import PinVaultStore

/// Every Argon2id run of the engine goes through here, so that GetStats'
/// `kdfEvaluations` counts each one (an online guesser's real cost).
extension VaultEngine {
    /// Opens `sealed` with `pin`: one Argon2id evaluation. Only `.openFailed` means
    /// a wrong PIN (`SeedSealer.open`).
    func openSeed(_ sealed: SealedSeed, pin: SecretBytes) throws(CryptoError) -> SecretBytes {
        stats.kdfEvaluated()
        return try SeedSealer.open(sealed, pin: pin, pepper: pepper)
    }

    /// Seals `seed` under `pin` with `parameters` (`settings.kdf` when nil): one Argon2id evaluation.
    func sealSeed(
        _ seed: SecretBytes, pin: SecretBytes, ownerUid: UInt32, user: String, keyId: KeyID,
        parameters: KDFParameters? = nil, call: Call
    ) throws(VaultError) -> SealedSeed {
        stats.kdfEvaluated()
        return try crypto(call) { () throws(CryptoError) in
            try SeedSealer.seal(
                seed: seed, pin: pin, pepper: pepper, ownerUid: ownerUid,
                user: user, keyId: keyId, parameters: parameters ?? settings.kdf
            )
        }
    }
}
