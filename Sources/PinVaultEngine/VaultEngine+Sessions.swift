import PinVaultCore
import PinVaultCrypto
import PinVaultStore
import PinVaultSystem

/// Unlock sessions: Unlock, Lock, Sign, the ssh-agent's identities, and every end of a
/// session (docs/ARCHITECTURE.md, SECURITY.md "Unlock sessions").
///
/// A session is engine state (`SessionTable`), never stored: the daemon's exit ends
/// them all. Unlock is a PIN call like Authenticate (`withPin`: counted before the
/// check, throttled, blocked, upgrade on use); Sign runs no KDF and reaches neither the
/// store nor the KDF pool: it signs on the caller's thread — the event loop — within
/// the uid's `SigningBudget` (always, while nothing else waits for the loop), and on the
/// signing thread past it.
extension VaultEngine {
    func unlock(
        _ call: Call, user: String, keyId: KeyID?, pin: SecretBytes, ttlSeconds: Int64, boundConnection: UInt64?,
        constraints: SessionConstraints
    ) {
        let maxTtl = settings.sessionMaxTtlSeconds
        guard maxTtl > 0 else { return call.finish(.failure(.permissionDenied)) }
        let ttl = min(max(ttlSeconds, 1), maxTtl)
        let owner = call.caller.uid, isAdmin = call.caller.isAdmin
        let admitting: @Sendable (CredentialRecord) throws(VaultError) -> Void = { [sessions] record throws(VaultError) in
            // A full table is refused before the PIN: no KDF, nothing counted.
            switch sessions.admits(record.keyId, owner: owner, isAdmin: isAdmin) {
            case nil, .abandoned: break
            case .full(let limit): throw .tooManySessions(limit: limit)
            case .stopping: throw .shuttingDown
            case .otherOwner: throw .noSuchCredential
            }
        }
        let use = KeyUse(access: .unlock, message: nil)
        withPin(call, owner: owner, user: user, keyId: keyId, pin: pin, use: use, admitting: admitting) { [self] record, seed, rightPin throws(VaultError) in
            try openSession(
                call, record: record, seed: seed, pin: pin, ttlSeconds: ttl, boundConnection: boundConnection,
                constraints: constraints, rightPin: rightPin
            )
        }
    }

    /// After a right PIN: clears the count, notes the use, re-seals a weaker record
    /// (upgrade on use), and opens the session — in the one transaction, so that a
    /// change of the credential either comes after it (and ends the session) or
    /// before it (and the session is not opened).
    private func openSession(
        _ call: Call, record: CredentialRecord, seed: SecretBytes, pin: SecretBytes, ttlSeconds: Int64, boundConnection: UInt64?,
        constraints: SessionConstraints, rightPin: RightPin
    ) throws(VaultError) -> VaultResult {
        let key = try crypto(call) { () throws(CryptoError) in try ProtectedSigningKey(algorithm: record.algorithm, seed: seed) }
        let upgraded = try upgradedSeal(of: record, seed: seed, pin: pin, call: call)
        let time = now()
        let (opened, failedAttemptsCleared): (SessionTable.Opened, Int) = try write(call) { writer in
            guard let current = try writer.credential(keyId: record.keyId), current.ownerUid == record.ownerUid else {
                throw VaultError.noSuchCredential
            }
            if let pending = current.pendingUnregistration, pending.expiresAt > time {
                throw VaultError.unregistrationPending(expiresAt: pending.expiresAt)
            }
            // A ChangePin (or a racing upgrade) re-sealed it since this PIN was checked:
            // the PIN may be the old one. Nothing is opened; a retry meets the new state.
            guard current.sealed == record.sealed else { throw VaultError.conflict }
            let (cleared, wrongPins) = clearing(current, by: rightPin)
            var updated = cleared
            updated.lastUsedAt = time
            if let upgraded { updated.sealed = upgraded }
            try writer.update(updated)
            let certificates = record.purpose == .ssh ? try writer.certificates(keyId: record.keyId) : []
            do throws(SessionTable.Refusal) {
                return (try sessions.open(
                    keyId: record.keyId, owner: record.ownerUid, isAdmin: call.caller.isAdmin, user: record.user, label: record.label,
                    purpose: record.purpose, key: key,
                    ttlNanoseconds: UInt64(ttlSeconds) * 1_000_000_000, wallUntil: time + ttlSeconds,
                    boundConnection: boundConnection, constraints: constraints, certificates: certificates,
                    abandoned: call.isCancelled
                ), wrongPins)
            } catch {
                switch error {
                case .full(let limit): throw VaultError.tooManySessions(limit: limit)
                case .stopping: throw VaultError.shuttingDown
                // Nobody waits for this Unlock (its connection closed, and with it the
                // call): nothing is opened, the transaction rolls back, the attempt is
                // cleared (`withVerifiedPin`), and the answer is dropped (`Call.finish`
                // answers no cancelled call). NotUnlocked is only what the engine ends
                // the call with; no one receives it.
                case .abandoned: throw VaultError.notUnlocked
                case .otherOwner: throw VaultError.noSuchCredential
                }
            }
        }
        stats.authenticationSucceeded()
        audit.recordUnlock(
            caller: call.caller, keyId: record.keyId, ttlSeconds: ttlSeconds,
            extended: opened == .extended, bound: boundConnection != nil
        )
        if upgraded != nil { audit.record(.resealed, caller: call.caller, keyId: record.keyId) }
        return .unlocked(
            keyId: record.keyId, unlockedUntil: time + ttlSeconds,
            failedAttemptsCleared: failedAttemptsCleared
        )
    }

    func lock(_ call: Call, keyId: KeyID?, access: KeyAccess?) {
        let ended = sessions.end(keyId: keyId, owner: call.caller.uid) { access?.serves($0) ?? true }
        recordEnded(ended, .locked, caller: call.caller)
        call.finish(.success(.locked(ended.map(\.keyId).sorted { $0.hex < $1.hex })))
    }

    /// Signs with the caller's session on `keyId`, if `access` may sign `message` with
    /// that key (`KeyAccess.check`) and the session's constraints allow it in `context`
    /// (`SessionConstraints.check`), both under the table's lock with the session found.
    func sign(_ call: Call, keyId: KeyID, message: [UInt8], access: KeyAccess, context: SigningContext) {
        let owner = call.caller.uid
        let othersWaiting = loopBacklog.othersWaiting
        switch sessions.sign(message, keyId: keyId, owner: owner, access: access, context: context, inline: true, othersWaiting: othersWaiting) {
        case .signed(let signature):
            call.finish(.success(.signature(signature)))
        case .notUnlocked:
            call.finish(.failure(.notUnlocked))
        case .refused(let error):
            refused(error, keyId: keyId, call)
        case .failed(let error):
            call.finish(.failure(failure(error, call)))
        case .overBudget:
            let admission = signingQueue.submitAnswering(uid: owner, isCancelled: call.isCancelled) { [self] in
                let signed = sessions.sign(message, keyId: keyId, owner: owner, access: access, context: context, inline: false)
                let result: Result<VaultResult, VaultError> = switch signed {
                case .signed(let signature): .success(.signature(signature))
                case .notUnlocked, .overBudget: .failure(.notUnlocked)
                case .refused(let error): .failure(error)
                case .failed(let error): .failure(failure(error, call))
                }
                return { [self] in
                    if case .refused(let error) = signed { refused(error, keyId: keyId, call) } else { call.finish(result) }
                }
            }
            if let refusal = refusal(admission) {
                call.finish(.failure(refusal))
            }
        }
    }

    /// Answers a signature the key's purpose or its session's constraints refuse. One
    /// refused for a forwarded agent is audited: someone on another host tried the key.
    private func refused(_ error: VaultError, keyId: KeyID, _ call: Call) {
        if error == .forwardingNotAllowed { audit.record(.forwardedSignatureRefused, caller: call.caller, keyId: keyId) }
        call.finish(.failure(error))
    }

    /// Ends the sessions opened with `bindToConnection` on connection `id`: its front
    /// door calls this when the connection closes.
    public func endSessions(boundTo id: UInt64) {
        recordEnded(sessions.end(boundTo: id), .connectionClosed)
    }

    /// Whether a session is bound to connection `id` (its door keeps it open while idle).
    public func hasSessions(boundTo id: UInt64) -> Bool {
        sessions.hasSessions(boundTo: id)
    }

    /// Ends the sessions and the security key's tokens whose time is up (the sweeper's
    /// work; a test with an injected clock calls it itself).
    func endExpiredSessions() {
        recordEnded(sessions.endExpired(), .expired)
        securityKeyTokens.endExpired()
    }

    /// The credentials `call` changed or deleted lose their sessions, whoever owns them.
    func endSessions(of keyIds: [KeyID], call: Call) {
        securityKeyTokens.end(keyIds: keyIds)
        recordEnded(sessions.end(keyIds: keyIds), .credentialChanged, caller: call.caller)
    }

    /// One audit line per ended session; the sessions (and so their keys) go with the array.
    func recordEnded(_ ended: [UnlockedKey], _ reason: SessionEnd, caller: Caller? = nil) {
        Self.recordEnded(ended, reason, caller: caller, audit: audit)
    }

    private static func recordEnded(_ ended: [UnlockedKey], _ reason: SessionEnd, caller: Caller?, audit: AuditLog) {
        for session in ended {
            audit.recordSessionEnd(
                keyId: session.keyId, owner: session.owner, reason: reason, signatures: session.signatures, caller: caller
            )
        }
    }

    /// The sweeper thread: sleeps until the earliest deadline of a session or a security
    /// key's token (or a new one's signal), ends what expired, and returns once the table
    /// stops. Reads check each deadline themselves, so the sweeper only makes an end
    /// prompt: it zeroes the key or the token's seed, and writes a session's audit line.
    /// No line per signature, no wake-up while neither is open. Lock order: the table's
    /// lock, then the tokens' (which never wait for the table's while they hold theirs).
    static func sweep(_ table: SessionTable, tokens: SecurityKeyTokens, audit: AuditLog) {
        while true {
            let stop: Bool = table.lock.withLock {
                while !table.stopping {
                    let deadlines = [table.nextDeadline(), tokens.nextDeadline()].compactMap { $0 }
                    guard let next = deadlines.min() else {
                        table.lock.wait()
                        continue
                    }
                    if next <= table.now() { return false }
                    table.lock.wait(untilMonotonicNanoseconds: next)
                }
                return true
            }
            if stop { return }
            recordEnded(table.endExpired(), .expired, caller: nil, audit: audit)
            tokens.endExpired()
        }
    }
}
