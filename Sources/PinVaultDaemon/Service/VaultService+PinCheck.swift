import PinVaultCore
import PinVaultCrypto
import PinVaultStore

/// The PIN check every PIN-taking call shares (DESIGN §5): find the credential,
/// refuse it if unusable, count the attempt durably, run the KDF, settle the count.
extension VaultService {
    /// Why a credential cannot take a PIN now: nil when it can.
    enum Refusal {
        case refuse(ServiceError)
        /// Failures reached `max_attempts` under `on_max_attempts = wipe` (left so by
        /// a crash between counting and answering): delete it now.
        case wipe
    }

    func counter(of record: CredentialRecord) -> FailureCounter {
        FailureCounter(failedAttempts: record.failedAttempts, lockedUntil: record.lockedUntil)
    }

    func refusal(for record: CredentialRecord, at now: Int64) -> Refusal? {
        if let pending = record.pendingUnregistration, pending.expiresAt > now {
            return .refuse(.unregistrationPending(expiresAt: pending.expiresAt))
        }
        switch counter(of: record).gate(now: now, policy: settings.lockout) {
        case .open:
            return nil
        case .lockedOut(let seconds):
            return .refuse(.lockedOut(retryAfterSeconds: seconds))
        case .blocked:
            return settings.lockout.onMaxAttempts == .wipe ? .wipe : .refuse(.credentialBlocked)
        }
    }

    /// The one credential `keyId` (or the only credential of `user`) names, for `owner`.
    func resolve(_ reader: VaultReader, owner: UInt32, user: String, keyId: KeyID?) throws -> CredentialRecord {
        let records = try reader.credentials(ownerUid: owner, user: user)
        if let keyId {
            guard let record = records.first(where: { $0.keyId == keyId }) else { throw ServiceError.noSuchCredential }
            return record
        }
        switch records.count {
        case 0: throw ServiceError.noSuchCredential
        case 1: return records[0]
        default: throw ServiceError.ambiguousCredential(records.map(\.keyId))
        }
    }

    /// On the store queue: the credential a PIN call addresses, if it can take a PIN
    /// now. Refusals here cost no KDF and count nothing.
    func admit(_ call: Call, owner: UInt32, user: String, keyId: KeyID?) throws -> CredentialRecord {
        let now = now()
        let record = try store.read { try resolve($0, owner: owner, user: user, keyId: keyId) }
        switch refusal(for: record, at: now) {
        case nil:
            return record
        case .refuse(let error):
            throw error
        case .wipe:
            try wipeExhausted(record.keyId, call: call)
        }
    }

    /// On a KDF thread: counts the attempt durably, then checks `pin`. Returns the
    /// record as counted and its seed; a wrong PIN throws what it earned.
    func verify(_ pin: SecretBytes, keyId: KeyID, owner: UInt32, call: Call) throws -> (CredentialRecord, SecretBytes) {
        let now = now()
        enum Start { case counted(CredentialRecord, before: FailureCounter), refused(Refusal) }
        // Re-checked in the counting transaction: the state may have moved since admission.
        let start: Start = try store.write { writer in
            guard let record = try writer.credential(keyId: keyId), record.ownerUid == owner else {
                throw ServiceError.noSuchCredential
            }
            if let refusal = refusal(for: record, at: now) { return .refused(refusal) }
            var counted = record
            let next = counter(of: record).beginningAttempt(now: now, policy: settings.lockout)
            counted.failedAttempts = next.failedAttempts
            counted.lockedUntil = next.lockedUntil
            try writer.update(counted)
            return .counted(counted, before: counter(of: record))
        }
        let record: CredentialRecord
        let before: FailureCounter
        switch start {
        case .counted(let counted, let previous):
            record = counted
            before = previous
        case .refused(.refuse(let error)):
            throw error
        case .refused(.wipe):
            try wipeExhausted(keyId, call: call)
        }

        do {
            return (record, try openSeed(record.sealed, pin: pin))
        } catch CryptoError.openFailed {
            throw try settleWrongPin(keyId, call: call, at: now)
        } catch {
            // Out of memory, say: the PIN was never checked, so the attempt must not count.
            try uncount(record, restoring: before)
            throw error
        }
    }

    /// Verifies `pin`, then runs `body` with the credential and its seed. When `body`
    /// fails after a right PIN (a store error, a lost race), the attempt `verify`
    /// counted is cleared all the same: only a wrong PIN may count (§5).
    func withVerifiedPin(
        _ pin: SecretBytes, keyId: KeyID, owner: UInt32, call: Call,
        _ body: (CredentialRecord, SecretBytes) throws -> VaultResult
    ) throws -> VaultResult {
        let (record, seed) = try verify(pin, keyId: keyId, owner: owner, call: call)
        do {
            return try body(record, seed)
        } catch {
            try? rewriteCounter(of: record, to: .cleared)
            throw error
        }
    }

    /// Puts back the counter an attempt wrote (the PIN was never checked).
    private func uncount(_ counted: CredentialRecord, restoring before: FailureCounter) throws {
        try rewriteCounter(of: counted, to: before)
    }

    /// Sets the counter of `counted`'s credential, unless another attempt has moved
    /// it since `counted` was written.
    private func rewriteCounter(of counted: CredentialRecord, to value: FailureCounter) throws {
        try store.write { writer in
            guard var current = try writer.credential(keyId: counted.keyId),
                  counter(of: current) == counter(of: counted)
            else { return }
            current.failedAttempts = value.failedAttempts
            current.lockedUntil = value.lockedUntil
            try writer.update(current)
        }
    }

    /// The counter already holds this failure; decide what it leads to.
    private func settleWrongPin(_ keyId: KeyID, call: Call, at now: Int64) throws -> ServiceError {
        enum Settled { case outcome(FailureCounter.Outcome, throttled: Bool), gone }
        let settled: Settled = try store.write { writer in
            guard let record = try writer.credential(keyId: keyId) else { return .gone }
            let counter = counter(of: record)
            let outcome = counter.outcomeOfWrongPin(policy: settings.lockout)
            if case .wiped = outcome {
                _ = try writer.delete(keyId: keyId)
            }
            return .outcome(outcome, throttled: (counter.lockedUntil ?? 0) > now)
        }
        stats.authenticationFailed()
        audit.record(.authenticationFailed, peer: call.peer, keyId: keyId)
        switch settled {
        case .gone:
            return .noSuchCredential
        case .outcome(.wrongPin(let remaining), let throttled):
            if throttled {
                stats.lockedOut()
                audit.record(.throttled, peer: call.peer, keyId: keyId)
            }
            return .wrongPin(remainingAttempts: remaining)
        case .outcome(.blocked, _):
            stats.lockedOut()
            audit.record(.blocked, peer: call.peer, keyId: keyId)
            return .credentialBlocked
        case .outcome(.wiped, _):
            stats.lockedOut()
            audit.record(.wiped, peer: call.peer, keyId: keyId)
            return .credentialWiped
        }
    }

    private func wipeExhausted(_ keyId: KeyID, call: Call) throws -> Never {
        _ = try store.write { try $0.delete(keyId: keyId) }
        audit.record(.wiped, peer: call.peer, keyId: keyId)
        stats.lockedOut()
        throw ServiceError.credentialWiped
    }

    /// `record` with its failure counter cleared (after a right PIN).
    func cleared(_ record: CredentialRecord) -> CredentialRecord {
        var record = record
        record.failedAttempts = 0
        record.lockedUntil = nil
        return record
    }
}
