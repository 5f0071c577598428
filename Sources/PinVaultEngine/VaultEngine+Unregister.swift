import PinVaultCore
import PinVaultCrypto
import PinVaultStore

/// BeginUnregister, CommitUnregister, AbortUnregister, and Wipe.
extension VaultEngine {
    func beginUnregister(_ call: Call, user: String, keyId: KeyID?, pin: SecretBytes?) {
        let owner = call.caller.uid
        guard let pin else {
            guard call.caller.isAdmin else { return call.finish(.failure(.permissionDenied)) }
            onStore(call) { [self] () throws(VaultError) -> VaultResult? in
                let record = try read(call) { try resolve($0, owner: owner, user: user, keyId: keyId) }
                return try markPending(record.keyId, call: call, clearingFailures: false)
            }
            return
        }
        withPin(call, owner: owner, user: user, keyId: keyId, pin: pin) { [self] record, _ throws(VaultError) in
            try markPending(record.keyId, call: call, clearingFailures: true)
        }
    }

    /// Stores the hash of a fresh token with its expiry; the token itself goes only
    /// to the caller.
    private func markPending(_ keyId: KeyID, call: Call, clearingFailures: Bool) throws(VaultError) -> VaultResult {
        let (token, tokenHash) = try crypto(call) { () throws(CryptoError) in
            let token = try UnregistrationToken.generate()
            return (token, try UnregistrationToken.hash(token))
        }
        let time = now()
        let pending = PendingUnregistration(tokenHash: tokenHash, expiresAt: time + settings.unregisterExpirySeconds)
        try write(call) { writer in
            guard let record = try writer.credential(keyId: keyId) else { throw VaultError.noSuchCredential }
            if let existing = record.pendingUnregistration, existing.expiresAt > time {
                throw VaultError.unregistrationPending(expiresAt: existing.expiresAt)
            }
            var updated = clearingFailures ? cleared(record) : record
            updated.pendingUnregistration = pending
            try writer.update(updated)
        }
        audit.record(.unregisterBegin, caller: call.caller, keyId: keyId)
        endSessions(of: [keyId], call: call)
        return .unregistrationBegun(keyId: keyId, token: token, expiresAt: pending.expiresAt)
    }

    func finishUnregister(_ call: Call, keyId: KeyID, token: SecretBytes, commit: Bool) {
        onStore(call) { [self] () throws(VaultError) -> VaultResult? in
            let presented = try crypto(call) { () throws(CryptoError) in try UnregistrationToken.hash(token) }
            let time = now()
            try write(call) { writer in
                // Another uid's credential is indistinguishable from none.
                guard let record = try writer.credential(keyId: keyId),
                      record.ownerUid == call.caller.uid || call.caller.isAdmin
                else { throw VaultError.noSuchCredential }
                guard let pending = record.pendingUnregistration, pending.expiresAt > time,
                      ConstantTime.equals(pending.tokenHash, presented)
                else { throw VaultError.invalidToken }
                if commit {
                    _ = try writer.delete(keyId: keyId)
                } else {
                    var updated = record
                    updated.pendingUnregistration = nil
                    try writer.update(updated)
                }
            }
            audit.record(commit ? .unregisterCommit : .unregisterAbort, caller: call.caller, keyId: keyId)
            if commit { endSessions(of: [keyId], call: call) }
            return .empty
        }
    }

    func wipe(_ call: Call, user: String, keyId: KeyID?, pin: SecretBytes?, ownerUid: UInt32?) {
        guard ownerUid == nil || call.caller.isAdmin else { return call.finish(.failure(.permissionDenied)) }
        let owner = ownerUid ?? call.caller.uid
        guard let pin else {
            guard call.caller.isAdmin else { return call.finish(.failure(.permissionDenied)) }
            onStore(call) { [self] () throws(VaultError) -> VaultResult? in
                try deleteAccount(owner: owner, user: user, call: call)
            }
            return
        }
        withPin(call, owner: owner, user: user, keyId: keyId, pin: pin) { [self] _, _ throws(VaultError) in
            try deleteAccount(owner: owner, user: user, call: call)
        }
    }

    /// Deletes every credential of `user` for `owner`, in one transaction.
    private func deleteAccount(owner: UInt32, user: String, call: Call) throws(VaultError) -> VaultResult {
        let deleted = try write(call) { try $0.deleteAll(ownerUid: owner, user: user) }
        guard !deleted.isEmpty else { throw .noSuchCredential }
        audit.record(.accountWiped, caller: call.caller, ownerUid: owner, count: deleted.count)
        endSessions(of: deleted, call: call)
        return .wiped(user: user, deletedKeyIds: deleted)
    }
}
