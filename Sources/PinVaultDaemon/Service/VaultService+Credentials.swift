import PinVaultCore
import PinVaultCrypto
import PinVaultStore

/// Register, List, Unblock, Reset.
extension VaultService {
    func register(_ call: Call, user: String, pin: SecretBytes, label: String?) {
        let violations = settings.policy.violations(of: pin)
        guard violations.isEmpty else { return call.finish(.failure(.pinPolicyViolation(violations))) }
        let owner = call.peer.uid
        onStore(call) { [self] in
            try store.read { try checkLimits($0, owner: owner, user: user) }
            try onKDF(call) { [self] in
                let seed = try Ed25519.generateSeed()
                let keyPair = try SigningKeyPair(seed: seed)
                let keyId = try KeyID(publicKey: keyPair.publicKey)
                let sealed = try sealSeed(seed, pin: pin, ownerUid: owner, user: user, keyId: keyId)
                let record = CredentialRecord(
                    sealed: sealed, label: label, publicKey: keyPair.publicKey, createdAt: now(),
                    lastUsedAt: nil, failedAttempts: 0, lockedUntil: nil, pendingUnregistration: nil
                )
                try store.write { writer in
                    try checkLimits(writer.reader, owner: owner, user: user)
                    try writer.insert(record)
                }
                audit.record(.register, peer: call.peer, keyId: keyId)
                return .credential(record)
            }
            return nil
        }
    }

    private func checkLimits(_ reader: VaultReader, owner: UInt32, user: String) throws {
        if try reader.count(ownerUid: owner, user: user) >= settings.maxCredentialsPerUser {
            throw ServiceError.tooManyCredentials(limit: settings.maxCredentialsPerUser)
        }
        if try reader.count(ownerUid: owner) >= settings.maxCredentialsPerUid {
            throw ServiceError.tooManyCredentials(limit: settings.maxCredentialsPerUid)
        }
    }

    func list(_ call: Call, user: String?, ownerUid: UInt32?) {
        guard ownerUid == nil || call.peer.isAdmin else { return call.finish(.failure(.permissionDenied)) }
        let owner = ownerUid ?? call.peer.uid
        onStore(call) { [self] in
            .credentials(try store.read { try $0.credentials(ownerUid: owner, user: user) })
        }
    }

    func unblock(_ call: Call, ownerUid: UInt32, user: String, keyId: KeyID) {
        guard call.peer.isAdmin else { return call.finish(.failure(.permissionDenied)) }
        onStore(call) { [self] in
            let record: CredentialRecord = try store.write { writer in
                guard let record = try writer.credential(keyId: keyId),
                      record.ownerUid == ownerUid, record.user == user
                else { throw ServiceError.noSuchCredential }
                let unblocked = cleared(record)
                try writer.update(unblocked)
                return unblocked
            }
            audit.record(.unblocked, peer: call.peer, keyId: keyId, ownerUid: ownerUid)
            return .credential(record)
        }
    }

    func reset(_ call: Call) {
        guard call.peer.isAdmin else { return call.finish(.failure(.permissionDenied)) }
        onStore(call) { [self] in
            let count = try store.write { try $0.deleteEverything() }
            audit.record(.reset, peer: call.peer, count: count)
            return .reset(deletedCount: count)
        }
    }
}
