import PinVaultCrypto
import PinVaultSystem

/// The unlock sessions of every uid: at most one per credential, found by keyId.
///
/// One lock guards the table; everything done under it is short — a lookup, an
/// insertion, or one Ed25519 signature (~25 µs with the key's two `mprotect` calls).
/// Signing under the lock is what serialises a key's page protection (a thread
/// signing while another closed the pages would fault), and keeps `Sign` off the
/// store queue and the KDF pool. Lock order: the store's transaction lock, then
/// this one (an Unlock inserts inside the transaction that clears its count); never
/// the reverse.
///
/// Ended sessions are handed back to the caller, which writes their audit lines
/// outside the lock and then drops them: the last reference going zeroes the key
/// (`sodium_free`).
///
/// Time is the engine's monotonic clock (`now`, nanoseconds), so that no step of the
/// wall clock lengthens a session; the sweeper thread (`VaultEngine+Sessions`) waits
/// on `lock` for the next deadline, and every read checks the deadline itself.
final class SessionTable: @unchecked Sendable {
    /// At most this many sessions at once, every uid together: each holds a
    /// `sodium_malloc` allocation of 4 pages (16 KiB mapped, one 4 KiB page locked),
    /// so the table stays under 16 MiB mapped and 4 MiB locked — inside the unit's
    /// `LimitMEMLOCK` beside the connections' buffers.
    static let maxTotal = 1024
    /// Sessions a uid may open in the part of the table kept for uids that hold few
    /// (`UidShares`): an ssh key and an app's key.
    static let newcomerShare = 2

    struct Limits: Sendable {
        /// `sessions.max_ttl_seconds`: the longest session; 0 refuses Unlock.
        var maxTtlSeconds: Int64
        /// `sessions.max_per_uid`: sessions of one owner uid at once.
        var maxPerUid: Int
        /// Sessions of every uid at once (`SessionTable.maxTotal`).
        var maxTotal: Int = SessionTable.maxTotal

        /// How the table is shared between uids: the last `maxPerUid` places (at most
        /// a sixteenth) for admins, the quarter below for uids holding fewer than
        /// `newcomerShare` sessions, so that uids of one person (64 × 16 fill 1024)
        /// never shut another uid, or root, out.
        var shares: UidShares.Limits {
            UidShares.Limits(
                capacity: maxTotal, perUid: maxPerUid, adminReserve: min(maxPerUid, maxTotal / 16),
                newcomerReserve: maxTotal / 4, newcomerShare: SessionTable.newcomerShare
            )
        }
    }

    let limits: Limits
    /// Monotonic nanoseconds (injectable for tests).
    let now: @Sendable () -> UInt64
    let lock = ConditionLock()
    private var sessions: [KeyID: UnlockedKey] = [:]
    /// The sessions each owner holds, and the table's places kept for others.
    private var shares: UidShares
    private var budget = SigningBudget()
    private(set) var stopping = false

    init(limits: Limits, now: @escaping @Sendable () -> UInt64) {
        self.limits = limits
        self.now = now
        self.shares = UidShares(limits.shares)
    }

    // MARK: Opening

    /// Why a session could not be opened.
    enum Refusal: Error, Equatable {
        /// `max_per_uid` sessions of this uid are open (`limit`), or every place this
        /// uid may take of the `maxTotal` (the rest is kept for admins and for uids
        /// holding fewer sessions).
        case full(limit: Int)
        /// Nobody waits for the Unlock any more (its connection closed): a session
        /// no one learned of is not opened, and a bound one would never end.
        case abandoned
        case stopping
        /// Another uid's session is open on this key id. Unreachable while a key id
        /// names one credential of one owner; checked all the same, so that no Unlock
        /// ever extends, or rebinds, a session that is not its caller's.
        case otherOwner
    }

    /// Whether `owner` may open one more session on `keyId` now (an open one is
    /// extended, so it always may): checked before the PIN, so that a refusal costs
    /// no KDF and no attempt, and again by `open`.
    func admits(_ keyId: KeyID, owner: UInt32, isAdmin: Bool) -> Refusal? {
        lock.withLock { refusal(keyId, owner: owner, isAdmin: isAdmin) }
    }

    private func refusal(_ keyId: KeyID, owner: UInt32, isAdmin: Bool) -> Refusal? {
        if stopping { return .stopping }
        if let open = sessions[keyId] { return open.owner == owner ? nil : .otherOwner }
        switch shares.refusal(taking: 1, uid: owner, isAdmin: isAdmin) {
        case nil: return nil
        case .perUid: return .full(limit: limits.maxPerUid)
        case .full, .keptForAdmins, .keptForNewcomers: return .full(limit: limits.maxTotal)
        }
    }

    /// What `open` did.
    enum Opened {
        case new
        /// The credential was unlocked already: the same session, with the new
        /// deadline and binding, its signature count going on.
        case extended
    }

    /// Opens a session on `key` for `ttl` nanoseconds, or extends `owner`'s open one
    /// (the later Unlock decides its deadline and binding); another uid's session on
    /// the key is never touched (`otherOwner`). `abandoned` is asked under the
    /// lock, so that a connection closing at any moment either finds the session
    /// (`endSessions(boundTo:)`) or keeps it from opening.
    func open(
        keyId: KeyID, owner: UInt32, isAdmin: Bool, user: String, label: String?, purpose: KeyPurpose, key: ProtectedSigningKey,
        ttlNanoseconds ttl: UInt64, wallUntil: Int64, boundConnection: UInt64?, constraints: SessionConstraints = .init(),
        certificates: [[UInt8]] = [], abandoned: () -> Bool
    ) throws(Refusal) -> Opened {
        try lock.withLock { () throws(Refusal) -> Opened in
            if let refused = refusal(keyId, owner: owner, isAdmin: isAdmin) { throw refused }
            if abandoned() { throw .abandoned }
            let (deadline, overflow) = now().addingReportingOverflow(ttl)
            let until = overflow ? UInt64.max : deadline
            if let open = sessions[keyId] {
                open.deadline = until
                open.wallUntil = wallUntil
                open.boundConnection = boundConnection
                open.constraints = constraints
                open.certificates = certificates
                lock.signal()
                return .extended
            }
            sessions[keyId] = UnlockedKey(
                keyId: keyId, owner: owner, user: user, label: label, purpose: purpose, key: key,
                deadline: until, wallUntil: wallUntil, boundConnection: boundConnection, constraints: constraints,
                certificates: certificates
            )
            shares.take(1, uid: owner)
            lock.signal()  // the sweeper may have a later deadline in mind
            return .new
        }
    }

    // MARK: Signing

    enum Signing {
        case signed([UInt8])
        /// No live session of this uid on that key (or another uid's: the same answer).
        case notUnlocked
        /// The uid used up its share of the event loop (`SigningBudget`): sign off the loop.
        case overBudget
        /// `access` may not sign `message` with this key (`KeyAccess.check`).
        case refused(VaultError)
        case failed(CryptoError)
    }

    /// Signs `message` with `owner`'s session on `keyId`, once `access` may
    /// (`KeyAccess.check`: the key's purpose, and what the message is) and the session's
    /// constraints allow it in `context`. `inline`: the caller is the event loop, which
    /// signs only within the uid's `SigningBudget` while `othersWaiting` for it.
    func sign(
        _ message: [UInt8], keyId: KeyID, owner: UInt32, access: KeyAccess, context: SigningContext, inline: Bool,
        othersWaiting: Bool = true
    ) -> Signing {
        do throws(VaultError) {
            try context.checkDoorRules()
        } catch {
            return .refused(error)
        }
        return lock.withLock {
            guard let session = sessions[keyId], session.owner == owner, session.deadline > now() else {
                return .notUnlocked
            }
            do throws(VaultError) {
                try access.check(session.purpose, message: message, algorithm: session.algorithm, publicKey: session.publicKey)
                try session.constraints.check(context)
            } catch {
                return .refused(error)
            }
            let start = MonotonicClock.nanoseconds()
            if inline && !budget.allows(owner, at: start, othersWaiting: othersWaiting) { return .overBudget }
            let signed = message.withUnsafeBytes { bytes in
                Result { () throws(CryptoError) in
                    try access.signsDigest ? session.key.signDigest(bytes) : session.key.sign(bytes)
                }
            }
            budget.charge(owner, MonotonicClock.nanoseconds() - start, othersWaiting: !inline || othersWaiting)
            switch signed {
            case .success(let signature):
                session.signatures += 1
                return .signed(signature)
            case .failure(let error):
                return .failed(error)
            }
        }
    }

    // MARK: Reading

    /// `owner`'s live sessions, oldest key id first; `wallNow` (Unix seconds) dates them.
    func views(owner: UInt32, wallNow: Int64) -> [UnlockedKeyView] {
        lock.withLock {
            let time = now()
            return sessions.values
                .filter { $0.owner == owner && $0.deadline > time }
                .map { view(of: $0, at: time, wallNow: wallNow) }
                .sorted { $0.keyId.hex < $1.keyId.hex }
        }
    }

    /// When `owner`'s session on `keyId` ends, in Unix seconds; nil when none is live.
    func unlockedUntil(_ keyId: KeyID, owner: UInt32, wallNow: Int64) -> Int64? {
        lock.withLock {
            let time = now()
            guard let session = sessions[keyId], session.owner == owner, session.deadline > time else { return nil }
            return view(of: session, at: time, wallNow: wallNow).unlockedUntil
        }
    }

    /// The wall-clock end of a session: the one Unlock reported, while the wall clock
    /// agrees with the monotonic one to the second; else (the wall clock stepped) now
    /// plus what is left of the session, rounded up — its true end.
    private func view(of session: UnlockedKey, at time: UInt64, wallNow: Int64) -> UnlockedKeyView {
        let left = session.deadline - time
        let seconds = Int64(clamping: left / 1_000_000_000 + (left % 1_000_000_000 == 0 ? 0 : 1))
        let (computed, overflow) = wallNow.addingReportingOverflow(seconds)
        let end = overflow ? Int64.max : computed
        return UnlockedKeyView(
            keyId: session.keyId, user: session.user, label: session.label, purpose: session.purpose, algorithm: session.algorithm, publicKey: session.publicKey,
            certificates: session.certificates,
            unlockedUntil: abs(end - session.wallUntil) <= 1 ? session.wallUntil : end
        )
    }

    var count: Int { lock.withLock { sessions.count } }

    /// Gives the session on `keyId`, if one is open, the certificates now attached to
    /// its credential (they change under a session: `pinvault ssh-cert add`).
    func setCertificates(_ certificates: [[UInt8]], keyId: KeyID) {
        lock.withLock { sessions[keyId]?.certificates = certificates }
    }

    // MARK: Ending

    /// Ends `owner`'s session on `keyId` (nil: all of `owner`'s) of a key whose purpose
    /// `ofPurpose` accepts. Returns the ended.
    func end(keyId: KeyID?, owner: UInt32, ofPurpose accepts: (KeyPurpose) -> Bool) -> [UnlockedKey] {
        lock.withLock {
            if let keyId {
                guard let session = sessions[keyId], session.owner == owner, accepts(session.purpose) else { return [] }
                return [remove(keyId)].compactMap { $0 }
            }
            return removeAll { $0.owner == owner && accepts($0.purpose) }
        }
    }

    /// Ends the sessions of these credentials, whoever owns them.
    func end(keyIds: [KeyID]) -> [UnlockedKey] {
        lock.withLock { keyIds.compactMap(remove) }
    }

    /// Whether a live session is bound to connection `id`.
    func hasSessions(boundTo id: UInt64) -> Bool {
        lock.withLock {
            let time = now()
            return sessions.values.contains { $0.boundConnection == id && $0.deadline > time }
        }
    }

    /// Ends the sessions bound to connection `id`.
    func end(boundTo id: UInt64) -> [UnlockedKey] {
        lock.withLock { removeAll { $0.boundConnection == id } }
    }

    /// Ends every session whose deadline has passed.
    func endExpired() -> [UnlockedKey] {
        lock.withLock {
            let time = now()
            return removeAll { $0.deadline <= time }
        }
    }

    /// Ends every session and opens no more (`stopping`).
    func endEverything(stopping stop: Bool) -> [UnlockedKey] {
        lock.withLock {
            if stop {
                stopping = true
                lock.broadcast()
            }
            return removeAll { _ in true }
        }
    }

    /// The earliest deadline, with the lock held; nil when there is no session.
    func nextDeadline() -> UInt64? {
        sessions.values.lazy.map(\.deadline).min()
    }

    private func remove(_ keyId: KeyID) -> UnlockedKey? {
        guard let session = sessions.removeValue(forKey: keyId) else { return nil }
        shares.give(1, uid: session.owner)
        return session
    }

    private func removeAll(where shouldEnd: (UnlockedKey) -> Bool) -> [UnlockedKey] {
        sessions.values.filter(shouldEnd).map(\.keyId).compactMap(remove)
    }
}
