import PinVaultCore
import PinVaultCrypto
import PinVaultStore

/// BeginUnregister, CommitUnregister, AbortUnregister, and Wipe.
extension VaultService {
    func beginUnregister(_ call: Call, user: String, keyId: KeyID?, pin: SecretBytes?) {
        let owner = call.peer.uid
        guard let pin else {
            guard call.peer.isAdmin else { return call.finish(.failure(.permissionDenied)) }
            onStore(call) { [self] in
                let record = try store.read { try resolve($0, owner: owner, user: user, keyId: keyId) }
                return try markPending(record.keyId, call: call, clearingFailures: false)
            }
            return
        }
        onStore(call) { [self] in
            let admitted = try admit(call, owner: owner, user: user, keyId: keyId)
            try onKDF(call) { [self] in
                try withVerifiedPin(pin, keyId: admitted.keyId, owner: owner, call: call) { record, _ in
                    try markPending(record.keyId, call: call, clearingFailures: true)
                }
            }
            return nil
        }
    }

    /// Stores the hash of a fresh token with its expiry; the token itself goes only
    /// to the caller.
    private func markPending(_ keyId: KeyID, call: Call, clearingFailures: Bool) throws -> VaultResult {
        let token = try UnregistrationToken.generate()
        let pending = PendingUnregistration(
            tokenHash: try UnregistrationToken.hash(token),
            expiresAt: now() + settings.unregisterExpirySeconds
        )
        let time = now()
        try store.write { writer in
            guard let record = try writer.credential(keyId: keyId) else { throw ServiceError.noSuchCredential }
            if let existing = record.pendingUnregistration, existing.expiresAt > time {
                throw ServiceError.unregistrationPending(expiresAt: existing.expiresAt)
            }
            var updated = clearingFailures ? cleared(record) : record
            updated.pendingUnregistration = pending
            try writer.update(updated)
        }
        audit.record(.unregisterBegin, peer: call.peer, keyId: keyId)
        return .unregistrationBegun(keyId: keyId, token: token, expiresAt: pending.expiresAt)
    }

    func finishUnregister(_ call: Call, keyId: KeyID, token: SecretBytes, commit: Bool) {
        onStore(call) { [self] in
            let presented = try UnregistrationToken.hash(token)
            let time = now()
            try store.write { writer in
                // Another uid's credential is indistinguishable from none.
                guard let record = try writer.credential(keyId: keyId),
                      record.ownerUid == call.peer.uid || call.peer.isAdmin
                else { throw ServiceError.noSuchCredential }
                guard let pending = record.pendingUnregistration, pending.expiresAt > time,
                      ConstantTime.equals(pending.tokenHash, presented)
                else { throw ServiceError.invalidToken }
                if commit {
                    _ = try writer.delete(keyId: keyId)
                } else {
                    var updated = record
                    updated.pendingUnregistration = nil
                    try writer.update(updated)
                }
            }
            audit.record(commit ? .unregisterCommit : .unregisterAbort, peer: call.peer, keyId: keyId)
            return .empty
        }
    }

    func wipe(_ call: Call, user: String, keyId: KeyID?, pin: SecretBytes?, ownerUid: UInt32?) {
        guard ownerUid == nil || call.peer.isAdmin else { return call.finish(.failure(.permissionDenied)) }
        let owner = ownerUid ?? call.peer.uid
        guard let pin else {
            guard call.peer.isAdmin else { return call.finish(.failure(.permissionDenied)) }
            onStore(call) { [self] in try deleteAccount(owner: owner, user: user, call: call) }
            return
        }
        onStore(call) { [self] in
            let admitted = try admit(call, owner: owner, user: user, keyId: keyId)
            try onKDF(call) { [self] in
                try withVerifiedPin(pin, keyId: admitted.keyId, owner: owner, call: call) { _, _ in
                    try deleteAccount(owner: owner, user: user, call: call)
                }
            }
            return nil
        }
    }

    /// Deletes every credential of `user` for `owner`, in one transaction.
    private func deleteAccount(owner: UInt32, user: String, call: Call) throws -> VaultResult {
        let deleted = try store.write { try $0.deleteAll(ownerUid: owner, user: user) }
        guard !deleted.isEmpty else { throw ServiceError.noSuchCredential }
        audit.record(.accountWiped, peer: call.peer, ownerUid: owner, count: deleted.count)
        return .wiped(user: user, deletedKeyIds: deleted)
    }
}
