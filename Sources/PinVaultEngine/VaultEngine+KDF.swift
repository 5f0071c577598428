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
        _ seed: SecretBytes, pin: SecretBytes, purpose: KeyPurpose, algorithm: KeyAlgorithm, formatVersion: UInt8?,
        ownerUid: UInt32, user: String, keyId: KeyID,
        parameters: KDFParameters? = nil, call: Call
    ) throws(VaultError) -> SealedSeed {
        stats.kdfEvaluated()
        return try crypto(call) { () throws(CryptoError) in
            try SeedSealer.seal(
                seed: seed, pin: pin, pepper: pepper, purpose: purpose, algorithm: algorithm,
                formatVersion: formatVersion, ownerUid: ownerUid,
                user: user, keyId: keyId, parameters: parameters ?? settings.kdf
            )
        }
    }

    /// Upgrade on use: `record` re-sealed under `pin` when it is weaker than today's
    /// KDF parameters, at the larger of each cost (a record stronger in one dimension
    /// keeps that strength); nil when it is already as strong.
    func upgradedSeal(of record: CredentialRecord, seed: SecretBytes, pin: SecretBytes, call: Call) throws(VaultError) -> SealedSeed? {
        let sealedWith = record.sealed.header.kdf
        let upgradedTo = sealedWith.upgraded(to: settings.kdf)
        guard upgradedTo != sealedWith else { return nil }
        return try sealSeed(
            seed, pin: pin, purpose: record.purpose, algorithm: record.algorithm,
            formatVersion: record.sealed.header.formatVersion, ownerUid: record.ownerUid, user: record.user,
            keyId: record.keyId, parameters: upgradedTo, call: call
        )
    }
}
