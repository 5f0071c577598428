import PinVaultCore
import PinVaultCrypto
import PinVaultStore

/// The PIN check every PIN-taking request shares (Authenticate, ChangePin,
/// BeginUnregister, Wipe): find the credential, refuse it if unusable, count the
/// attempt durably, run the KDF, settle the count (docs/FORMAT.md, SECURITY.md).
extension VaultEngine {
    /// Runs a PIN-taking request, in order: on the store queue, `admit` finds the
    /// credential and refuses it (no KDF, nothing counted) when it cannot take a PIN
    /// now; on a KDF thread, the attempt is counted durably, the PIN checked, the count
    /// settled, and `body` runs with the credential, its opened seed, and the
    /// `RightPin` whose `clearing` the body writes in its own transaction. A right PIN
    /// whose `body` fails takes back its own attempt only. `admitting` may refuse
    /// the credential found, on the store queue, before anything is counted (Unlock's
    /// full session table).
    ///
    /// `failedAttemptsCleared` is the one definition every PIN call that succeeds
    /// answers: the wrong PINs this success cleared (`clearing`) — every wrong PIN
    /// answered since the last right one, whatever Unblocks came between, and none
    /// whose check still runs beside it: those stay counted for the next success.
    ///
    /// `use`: the key use the call makes (Authenticate, Unlock), checked by
    /// `KeyAccess.check` before anything is counted; nil for the calls that manage a
    /// credential of any purpose (ChangePin, BeginUnregister, Wipe).
    ///
    /// `pin` is the PIN itself, which the check turns into the credential's sealing
    /// secret (`sealingSecret`: for a `webauthn` credential, LEFT(SHA-256(PIN), 16)) —
    /// unless `pinIsSecurityKeyHash`, for the passkey door, whose client sends that hash.
    func withPin(
        _ call: Call, owner: UInt32, user: String, keyId: KeyID?, pin: SecretBytes, use: KeyUse? = nil,
        pinIsSecurityKeyHash: Bool = false,
        admitting: (@Sendable (CredentialRecord) throws(VaultError) -> Void)? = nil,
        _ body: @escaping @Sendable (CredentialRecord, SecretBytes, RightPin) throws(VaultError) -> VaultResult
    ) {
        onStore(call) { [self] () throws(VaultError) -> VaultResult? in
            let admitted = try admit(call, owner: owner, user: user, keyId: keyId, use: use)
            // Only the passkey door sends a hash, and it serves only `webauthn` credentials.
            guard !pinIsSecurityKeyHash || admitted.purpose == .webauthn else { throw VaultError.wrongPurpose(admitted.purpose) }
            try admitting?(admitted)
            try onKDF(call) { [self] () throws(VaultError) -> VaultResult in
                let secret = pinIsSecurityKeyHash ? pin : try sealingSecret(for: admitted.purpose, pin: pin)
                return try withVerifiedPin(secret, keyId: admitted.keyId, owner: owner, call: call, body)
            }
            return nil
        }
    }

    /// Why a credential cannot take a PIN now: nil when it can.
    enum Refusal {
        case refuse(VaultError)
        /// Failures reached `max_attempts` under `on_max_attempts = wipe` (left so by
        /// a crash between counting and answering): delete it now.
        case wipe
    }

    func counter(of record: CredentialRecord) -> FailureCounter {
        FailureCounter(
            failedAttempts: record.failedAttempts, lockedUntil: record.lockedUntil,
            wrongPinsSinceSuccess: record.wrongPinsSinceSuccess
        )
    }

    func refusal(for record: CredentialRecord, at now: Int64) -> Refusal? {
        if let pending = record.pendingUnregistration, pending.expiresAt > now {
            return .refuse(.unregistrationPending(expiresAt: latestExpiry(pending.expiresAt, at: now)))
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

    /// The one credential `keyId` names for `owner`, or without a key id the only one
    /// of `user`'s that `access` may use (any of them when `access` is nil). When `user`
    /// holds credentials but none that `access` may use, the first is answered, for the
    /// caller's purpose check to refuse by name (`WrongPurpose`).
    func resolve(_ reader: VaultReader, owner: UInt32, user: String, keyId: KeyID?, usableBy access: KeyAccess? = nil) throws -> CredentialRecord {
        let records = try reader.credentials(ownerUid: owner, user: user)
        if let keyId {
            guard let record = records.first(where: { $0.keyId == keyId }) else { throw VaultError.noSuchCredential }
            return record
        }
        let usable = access.map { access in records.filter { access.serves($0.purpose) } } ?? records
        switch usable.count {
        case 0:
            guard let first = records.first else { throw VaultError.noSuchCredential }
            return first
        case 1: return usable[0]
        default: throw VaultError.ambiguousCredential(usable.map(\.keyId))
        }
    }

    /// On the store queue: the credential a PIN call addresses, if it can take a PIN
    /// now and serves the call's key `use`. Refusals here cost no KDF and count nothing.
    func admit(_ call: Call, owner: UInt32, user: String, keyId: KeyID?, use: KeyUse? = nil) throws(VaultError) -> CredentialRecord {
        let now = now()
        let found = try read(call) { try resolve($0, owner: owner, user: user, keyId: keyId, usableBy: use?.access) }
        try use?.check(found)
        try refuseTamperedCosts(found, call: call)
        let record = try writeCappedTimes(of: found, at: now, call: call)
        switch refusal(for: record, at: now) {
        case nil:
            return record
        case .refuse(let error):
            throw error
        case .wipe:
            try wipeExhausted(record.keyId, call: call)
        }
    }

    /// Refuses a record whose KDF costs exceed `kdf.max_*` (edited outside the daemon:
    /// such a header does not open, and Argon2id at 2^32 - 1 passes would tie a KDF
    /// thread up for hours) before anything is counted or run.
    func refuseTamperedCosts(_ record: CredentialRecord, call: Call) throws(VaultError) {
        let costs = record.sealed.header.kdf
        guard costs.exceeds(settings.kdfMaximum) else { return }
        logger.error("credential record names KDF costs beyond kdf.max_opslimit/kdf.max_memlimit_mib: refused without a KDF, nothing counted; was vault.sqlite edited?", metadata: [
            "uid": "\(call.caller.uid)", "keyId": "\(record.keyId.hex)",
            "opslimit": "\(costs.opslimit)", "memlimit": "\(costs.memlimit)",
        ])
        throw .internalError
    }

    /// What the counting transaction found.
    enum CountStart { case counted(CountedAttempt), refused(VaultError), wiped }

    /// An attempt counted durably, its PIN not yet checked.
    struct CountedAttempt {
        /// The record as the counting transaction wrote it.
        let record: CredentialRecord
        /// The counter before that transaction: open, or it would have refused the attempt.
        let before: FailureCounter
        /// When the attempt was counted (wall-clock seconds).
        let at: Int64
        /// In flight until its check ends (`AttemptsInFlight`).
        let inFlight: AttemptsInFlight.Attempt
    }

    /// Counts one attempt on the credential in one transaction, re-checking there that
    /// it may take a PIN (the state may have moved since admission): a credential
    /// blocked, throttled or pending by then is refused without a KDF and uncounted.
    func countAttempt(keyId: KeyID, owner: UInt32, call: Call) throws(VaultError) -> CountedAttempt {
        let now = now()
        let inFlight = attemptsInFlight.attempt(on: keyId)
        let start: CountStart
        do {
            start = try writeCount(keyId: keyId, owner: owner, at: now, inFlight: inFlight, call: call)
        } catch {
            inFlight.settle()  // not counted after all: the transaction rolled back
            throw error
        }
        switch start {
        case .counted(let attempt):
            return attempt
        case .refused(let error):
            throw error
        case .wiped:
            throw recordWiped(keyId, call: call)
        }
    }

    /// `countAttempt`'s transaction.
    private func writeCount(
        keyId: KeyID, owner: UInt32, at now: Int64, inFlight: AttemptsInFlight.Attempt, call: Call
    ) throws(VaultError) -> CountStart {
        try write(call) { writer in
            guard var record = try writer.credential(keyId: keyId), record.ownerUid == owner else {
                throw VaultError.noSuchCredential
            }
            try refuseTamperedCosts(record, call: call)
            if let capped = cappedToClock(record, at: now) {
                try writer.update(capped)
                record = capped
            }
            switch refusal(for: record, at: now) {
            case nil:
                break
            case .refuse(let error):
                return .refused(error)
            case .wipe:
                _ = try writer.delete(keyId: keyId)
                return .wiped
            }
            var counted = record
            let next = counter(of: record).beginningAttempt(now: now, policy: settings.lockout)
            counted.set(next)
            try writer.update(counted)
            inFlight.begin()
            return .counted(CountedAttempt(record: counted, before: counter(of: record), at: now, inFlight: inFlight))
        }
    }

    /// Runs the KDF over `pin` for a counted attempt: the seed, or what a wrong PIN earned.
    func check(_ pin: SecretBytes, _ attempt: CountedAttempt, call: Call) throws(VaultError) -> (CredentialRecord, SecretBytes) {
        do {
            return (attempt.record, try openSeed(attempt.record.sealed, pin: pin))
        } catch .openFailed {
            attempt.inFlight.settle()
            throw try settleWrongPin(attempt, call: call)
        } catch {
            // Out of memory, say: the PIN was never checked, so the attempt must not count
            // (unless other attempts moved the count since: then it stays, as a wrong PIN).
            defer { attempt.inFlight.settle() }
            try rewriteCounter(of: attempt.record, to: attempt.before, call: call)
            throw failure(error, call)
        }
    }

    /// Verifies `pin`, then runs `body` with the credential, its seed and the
    /// `RightPin` it clears the count with (`withPin`). When `body` fails after a right
    /// PIN (a store error, a lost race), the right PIN takes back its own attempt and
    /// leaves the rest counted: only a wrong PIN may count, and only a success that
    /// reaches its caller may clear wrong PINs, since only it reports them. A body's
    /// clearing transaction is its last step that may fail, so that a failed body's
    /// clearing never committed.
    func withVerifiedPin(
        _ pin: SecretBytes, keyId: KeyID, owner: UInt32, call: Call,
        _ body: (CredentialRecord, SecretBytes, RightPin) throws(VaultError) -> VaultResult
    ) throws(VaultError) -> VaultResult {
        let attempt = try countAttempt(keyId: keyId, owner: owner, call: call)
        let (record, seed) = try check(pin, attempt, call: call)
        let rightPin = RightPin(attempt: attempt.inFlight)
        defer { rightPin.attempt.settle() }  // settled by the body's clearing, or the credential is gone
        do {
            return try body(record, seed, rightPin)
        } catch {
            // Only a success that reaches its caller clears wrong PINs (it alone reports
            // them): a failed one takes back its own attempt and leaves the rest counted.
            try? write(call) { writer in
                guard var current = try writer.credential(keyId: keyId) else { return }
                rightPin.attempt.settle()
                let counted = counter(of: current)
                let failures = max(counted.failedAttempts - 1, 0)
                current.set(FailureCounter(
                    failedAttempts: failures,
                    lockedUntil: settings.lockout.delay(afterFailures: failures) > 0 ? counted.lockedUntil : nil,
                    wrongPinsSinceSuccess: max(counted.wrongPinsSinceSuccess - 1, 0)))
                try writer.update(current)
            }
            throw error
        }
    }

    /// Sets the counter of `counted`'s credential, unless another attempt has moved
    /// it since `counted` was written.
    private func rewriteCounter(of counted: CredentialRecord, to value: FailureCounter, call: Call) throws(VaultError) {
        try write(call) { writer in
            guard var current = try writer.credential(keyId: counted.keyId),
                  counter(of: current) == counter(of: counted)
            else { return }
            current.set(value)
            try writer.update(current)
        }
    }

    /// The counter already holds this failure. What it leads to follows from the count
    /// this attempt wrote, not from what racing attempts wrote since: a credential
    /// moves into throttled or blocked in the transaction that counts an attempt (which
    /// refuses one already blocked or throttled), so only the attempt whose count did
    /// that reports it and adds to `lockouts`, and a wipe counts only when its delete
    /// removed the row. Of two wrong PINs settling out of order, the earlier count thus
    /// answers WrongPin, not the block the later one caused.
    private func settleWrongPin(_ attempt: CountedAttempt, call: Call) throws(VaultError) -> VaultError {
        let keyId = attempt.record.keyId
        let counted = counter(of: attempt.record)
        let outcome = counted.outcomeOfWrongPin(policy: settings.lockout)
        // The attempts left now, after racing attempts too (a right PIN may have
        // cleared the count); nil when the credential is gone (wiped or deleted since).
        let remaining: Int? = try write(call) { writer in
            if case .wiped = outcome {
                return try writer.delete(keyId: keyId) ? 0 : nil
            }
            return try writer.credential(keyId: keyId).map { counter(of: $0).remainingAttempts(policy: settings.lockout) }
        }
        stats.authenticationFailed()
        audit.record(.authenticationFailed, caller: call.caller, keyId: keyId, ownerUid: attempt.record.ownerUid)
        guard let remaining else { return .noSuchCredential }
        switch outcome {
        case .wrongPin:
            if (counted.lockedUntil ?? 0) > attempt.at {
                // This attempt's count began a wait: active → throttled.
                stats.lockedOut()
                audit.record(.throttled, caller: call.caller, keyId: keyId)
            }
            return .wrongPin(remainingAttempts: remaining)
        case .blocked:
            stats.lockedOut()
            audit.record(.blocked, caller: call.caller, keyId: keyId)
            endSessions(of: [keyId], call: call)
            return .credentialBlocked
        case .wiped:
            return recordWiped(keyId, call: call)
        }
    }

    /// Deletes a credential left at `max_attempts` under `on_max_attempts = wipe`. Of
    /// racing calls, the one whose delete removed the row answers CredentialWiped and
    /// counts the lockout; the others find it gone.
    private func wipeExhausted(_ keyId: KeyID, call: Call) throws(VaultError) -> Never {
        guard try write(call, { try $0.delete(keyId: keyId) }) else { throw .noSuchCredential }
        throw recordWiped(keyId, call: call)
    }

    /// Notes a credential this call deleted for reaching `max_attempts`.
    private func recordWiped(_ keyId: KeyID, call: Call) -> VaultError {
        audit.record(.wiped, caller: call.caller, keyId: keyId)
        endSessions(of: [keyId], call: call)
        stats.lockedOut()
        return .credentialWiped
    }
}

extension CredentialRecord {
    /// Stores `counter`'s counts and wait in the record.
    mutating func set(_ counter: FailureCounter) {
        failedAttempts = counter.failedAttempts
        lockedUntil = counter.lockedUntil
        wrongPinsSinceSuccess = counter.wrongPinsSinceSuccess
    }
}
