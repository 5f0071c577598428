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

    /// What a record of `purpose` is sealed under, given the PIN itself: the PIN, or
    /// for an authenticator credential (`webauthn`) LEFT(SHA-256(PIN), 16), which is what
    /// CTAP sends to check it (`SecurityKeyPin`, docs/FORMAT.md). Every door but the
    /// passkey door hands the engine the PIN itself; the passkey door hands it the hash,
    /// which is already the sealing secret (`withPin`'s `pinIsSecurityKeyHash`).
    func sealingSecret(for purpose: KeyPurpose, pin: SecretBytes) throws(VaultError) -> SecretBytes {
        guard purpose == .webauthn else { return pin }
        do { return try SecurityKeyPin.hash(pin) } catch { throw .internalError }
    }

    /// Seals `seed` under `pin` (the sealing secret: `sealingSecret`) with `parameters` (`settings.kdf` when nil): one Argon2id evaluation.
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
