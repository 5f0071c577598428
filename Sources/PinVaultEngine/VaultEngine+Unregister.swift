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
                return try markPending(record.keyId, call: call, rightPin: nil)
            }
            return
        }
        withPin(call, owner: owner, user: user, keyId: keyId, pin: pin) { [self] record, _, rightPin throws(VaultError) in
            try markPending(record.keyId, call: call, rightPin: rightPin)
        }
    }

    /// Stores the hash of a fresh token with its expiry; the token itself goes only
    /// to the caller. After a right PIN (`rightPin`) the count is cleared too; nil for
    /// an admin's call without a PIN, which clears nothing.
    private func markPending(_ keyId: KeyID, call: Call, rightPin: RightPin?) throws(VaultError) -> VaultResult {
        let (token, tokenHash) = try crypto(call) { () throws(CryptoError) in
            let token = try UnregistrationToken.generate()
            return (token, try UnregistrationToken.hash(token))
        }
        let time = now()
        let pending = PendingUnregistration(tokenHash: tokenHash, expiresAt: time + settings.unregisterExpirySeconds)
        let failedAttemptsCleared: Int = try write(call) { writer in
            guard let record = try writer.credential(keyId: keyId) else { throw VaultError.noSuchCredential }
            if let existing = record.pendingUnregistration, existing.expiresAt > time {
                throw VaultError.unregistrationPending(expiresAt: latestExpiry(existing.expiresAt, at: time))
            }
            var (updated, wrongPins) = rightPin.map { clearing(record, by: $0) } ?? (record, 0)
            updated.pendingUnregistration = pending
            try writer.update(updated)
            return wrongPins
        }
        audit.record(.unregisterBegin, caller: call.caller, keyId: keyId)
        endSessions(of: [keyId], call: call)
        return .unregistrationBegun(
            keyId: keyId, token: token, expiresAt: pending.expiresAt, failedAttemptsCleared: failedAttemptsCleared
        )
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
                try deleteAccount(owner: owner, user: user, rightPin: nil, call: call)
            }
            return
        }
        withPin(call, owner: owner, user: user, keyId: keyId, pin: pin) { [self] _, _, rightPin throws(VaultError) in
            try deleteAccount(owner: owner, user: user, rightPin: rightPin, call: call)
        }
    }

    /// Deletes every credential of `user` for `owner`, in one transaction; after a right
    /// PIN for one of them (`rightPin`), the wrong PINs its success clears are told.
    private func deleteAccount(
        owner: UInt32, user: String, rightPin: RightPin?, call: Call
    ) throws(VaultError) -> VaultResult {
        let (deleted, failedAttemptsCleared): ([KeyID], Int) = try write(call) { writer in
            var wrongPins = 0
            if let rightPin, let checked = try writer.credential(keyId: rightPin.attempt.keyId) {
                wrongPins = clearing(checked, by: rightPin).failedAttemptsCleared
            }
            return (try writer.deleteAll(ownerUid: owner, user: user), wrongPins)
        }
        guard !deleted.isEmpty else { throw .noSuchCredential }
        audit.record(.accountWiped, caller: call.caller, ownerUid: owner, count: deleted.count)
        endSessions(of: deleted, call: call)
        return .wiped(user: user, deletedKeyIds: deleted, failedAttemptsCleared: failedAttemptsCleared)
    }
}
