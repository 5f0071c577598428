import PinVaultCore
import PinVaultCrypto
import PinVaultStore

/// Register, List, Unblock, Reset.
extension VaultEngine {
    func register(_ call: Call, user: String, pin: SecretBytes, label: String?, purpose: KeyPurpose, algorithm: KeyAlgorithm) {
        // Legacy is what a record made before purposes reads as, never a purpose to give.
        guard KeyPurpose.registrable.contains(purpose) else { return call.finish(.failure(.wrongPurpose(purpose))) }
        let violations = settings.policy.violations(of: pin)
        guard violations.isEmpty else { return call.finish(.failure(.pinPolicyViolation(violations))) }
        let owner = call.caller.uid
        onStore(call) { [self] () throws(VaultError) -> VaultResult? in
            try read(call) { try checkLimits($0, owner: owner, user: user, purpose: purpose) }
            try onKDF(call) { [self] () throws(VaultError) -> VaultResult in
                let (seed, keyPair, keyId) = try crypto(call) { () throws(CryptoError) in
                    let seed = try KeyAlgorithm.generateSeed()
                    let keyPair = try SigningKeyPair(algorithm: algorithm, seed: seed)
                    return (seed, keyPair, try KeyID(publicKey: keyPair.publicKey))
                }
                let sealed = try sealSeed(
                    seed, pin: try sealingSecret(for: purpose, pin: pin), purpose: purpose, algorithm: algorithm, formatVersion: nil, ownerUid: owner, user: user,
                    keyId: keyId, call: call)
                let record = CredentialRecord(
                    sealed: sealed, label: label, publicKey: keyPair.publicKey, createdAt: now(),
                    lastUsedAt: nil, failedAttempts: 0, lockedUntil: nil, pendingUnregistration: nil
                )
                try write(call) { writer in
                    try checkLimits(writer.reader, owner: owner, user: user, purpose: purpose)
                    try writer.insert(record)
                }
                audit.record(.register, caller: call.caller, keyId: keyId)
                return .credential(view(of: record))
            }
            return nil
        }
    }

    private func checkLimits(_ reader: VaultReader, owner: UInt32, user: String, purpose: KeyPurpose) throws {
        // A uid has one security key: one PIN, one retry counter, as CTAP knows them.
        if purpose == .webauthn, try reader.credentials(ownerUid: owner, user: nil).contains(where: { $0.purpose == .webauthn }) {
            throw VaultError.tooManyCredentials(limit: 1)
        }
        if try reader.count(ownerUid: owner, user: user) >= settings.maxCredentialsPerUser {
            throw VaultError.tooManyCredentials(limit: settings.maxCredentialsPerUser)
        }
        if try reader.count(ownerUid: owner) >= settings.maxCredentialsPerUid {
            throw VaultError.tooManyCredentials(limit: settings.maxCredentialsPerUid)
        }
        // Per-uid limits do not bound a user holding many uids (a subordinate range).
        if try reader.totalCount() >= settings.maxCredentialsTotal {
            throw VaultError.tooManyCredentials(limit: settings.maxCredentialsTotal)
        }
    }

    func list(_ call: Call, user: String?, ownerUid: UInt32?, purpose: KeyPurpose?) {
        guard ownerUid == nil || call.caller.isAdmin else { return call.finish(.failure(.permissionDenied)) }
        let owner = ownerUid ?? call.caller.uid
        onStore(call) { [self] () throws(VaultError) -> VaultResult? in
            let time = now()
            let views: [CredentialView] = try read(call) { reader in
                try reader.credentials(ownerUid: owner, user: user)
                    .filter { purpose == nil || $0.purpose == purpose }
                    .map { view(of: $0, at: time, certificates: $0.purpose == .ssh ? try reader.certificates(keyId: $0.keyId) : []) }
            }
            return .credentials(views)
        }
    }

    /// Revives a blocked credential for its owner's next PIN — never more than
    /// `LockoutPolicy.maxWrongPinsSinceSuccess` wrong PINs between two of the owner's
    /// successes, and without clearing the count of them the owner will be told
    /// (`FailureCounter.unblocking`). A credential that is not blocked is answered as
    /// it is.
    func unblock(_ call: Call, ownerUid: UInt32, user: String, keyId: KeyID) {
        guard call.caller.isAdmin else { return call.finish(.failure(.permissionDenied)) }
        onStore(call) { [self] () throws(VaultError) -> VaultResult? in
            let (record, unblocked): (CredentialRecord, Bool) = try write(call) { writer in
                guard var record = try writer.credential(keyId: keyId),
                      record.ownerUid == ownerUid, record.user == user
                else { throw VaultError.noSuchCredential }
                switch counter(of: record).unblocking(policy: settings.lockout) {
                case .notBlocked:
                    return (record, false)
                case .refused(let wrongPins):
                    throw VaultError.unblockRefused(wrongPins: wrongPins)
                case .unblocked(let counter):
                    record.set(counter)
                    try writer.update(record)
                    return (record, true)
                }
            }
            if unblocked {
                audit.record(.unblocked, caller: call.caller, keyId: keyId, ownerUid: ownerUid)
                endSessions(of: [keyId], call: call)
            }
            return .credential(view(of: record))
        }
    }

    func reset(_ call: Call) {
        guard call.caller.isAdmin else { return call.finish(.failure(.permissionDenied)) }
        onStore(call) { [self] () throws(VaultError) -> VaultResult? in
            let count = try write(call) { try $0.deleteEverything() }
            audit.record(.reset, caller: call.caller, count: count)
            recordEnded(sessions.endEverything(stopping: false), .credentialChanged, caller: call.caller)
            securityKeyTokens.endAll()
            return .reset(deletedCount: count)
        }
    }
}
