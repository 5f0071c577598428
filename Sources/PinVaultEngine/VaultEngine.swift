import Logging
import PinVaultCore
import PinVaultCrypto
import PinVaultStore
import PinVaultSystem

/// The vault: every request of every front door, over the store, the sealing and the
/// lockout rules. It knows no protocol and no socket: a door decodes a `VaultRequest`,
/// names its `Caller`, and gets back a `VaultResult` or a `VaultError`.
///
/// Threads. `submit` runs on the caller's thread (a door's event loop) and never blocks:
/// what costs nothing (policy and permission checks) is answered there; everything
/// else goes to one of two pools, and a pool that is full answers `Busy` at once.
/// - The store queue (one thread) serves requests that only read or write the store,
///   and admits PIN requests: finds the credential and refuses it, without a KDF and
///   uncounted, when it cannot take a PIN now.
/// - The KDF pool (`kdf.max_parallel` threads) runs each PIN check from the durable
///   count through Argon2id to settling the count, on one thread and with no hop
///   between, so that a check never runs uncounted (`VaultEngine+PinCheck.swift`).
/// Both reach the store, which serialises every transaction with its own lock. Each
/// state change is one transaction.
public final class VaultEngine: Sendable {
    /// What the engine needs of the configuration.
    public struct Settings: Sendable {
        public var policy: PinPolicy
        public var lockout: LockoutPolicy
        /// Parameters for new seals; weaker records are upgraded on use.
        public var kdf: KDFParameters
        /// The largest costs a stored record may name (`kdf.max_opslimit`,
        /// `kdf.max_memlimit_mib`); a record beyond them is refused before any KDF.
        public var kdfMaximum: KDFParameters
        public var unregisterExpirySeconds: Int64
        public var maxCredentialsPerUser: Int
        public var maxCredentialsPerUid: Int
        /// Credentials of every uid together (`credentials.max_total`).
        public var maxCredentialsTotal: Int
        /// KDF threads (at least 1), jobs waiting at most, and per uid (waiting or running).
        public var kdfThreads: Int
        public var kdfQueueMax: Int
        public var kdfQueuePerUid: Int
        /// Requests waiting for the store at most, and per uid.
        public var storeQueueMax: Int
        public var storeQueuePerUid: Int
        /// `sessions.max_ttl_seconds` (0: Unlock is refused) and `sessions.max_per_uid`.
        public var sessionMaxTtlSeconds: Int64
        public var sessionsPerUid: Int

        public init(
            policy: PinPolicy, lockout: LockoutPolicy, kdf: KDFParameters,
            kdfMaximum: KDFParameters = KDFParameters(opslimit: 16, memlimit: 1 << 30), unregisterExpirySeconds: Int64,
            maxCredentialsPerUser: Int, maxCredentialsPerUid: Int, maxCredentialsTotal: Int = 100_000,
            kdfThreads: Int, kdfQueueMax: Int, kdfQueuePerUid: Int, storeQueueMax: Int, storeQueuePerUid: Int,
            sessionMaxTtlSeconds: Int64 = 3600, sessionsPerUid: Int = 16
        ) {
            self.policy = policy
            self.lockout = lockout
            self.kdf = kdf
            self.kdfMaximum = kdfMaximum
            self.unregisterExpirySeconds = unregisterExpirySeconds
            self.maxCredentialsPerUser = maxCredentialsPerUser
            self.maxCredentialsPerUid = maxCredentialsPerUid
            self.maxCredentialsTotal = maxCredentialsTotal
            self.kdfThreads = kdfThreads
            self.kdfQueueMax = kdfQueueMax
            self.kdfQueuePerUid = kdfQueuePerUid
            self.storeQueueMax = storeQueueMax
            self.storeQueuePerUid = storeQueuePerUid
            self.sessionMaxTtlSeconds = sessionMaxTtlSeconds
            self.sessionsPerUid = sessionsPerUid
        }
    }

    let settings: Settings
    let store: VaultStore
    let pepper: Pepper
    let kdfPool: WorkPool
    let storeQueue: WorkPool
    /// Signatures a uid could not make on the event loop within its `SigningBudget`.
    let signingQueue: WorkPool
    /// Whether the event loop that calls `submit` has more work waiting (`SigningBudget`).
    let loopBacklog: LoopBacklog
    /// The unlock sessions (`VaultEngine+Sessions.swift`).
    let sessions: SessionTable
    /// The security key's pinUvAuthTokens, by CTAPHID channel.
    let securityKeyTokens: SecurityKeyTokens
    /// The PIN attempts counted and not settled, per credential (`withVerifiedPin`).
    let attemptsInFlight = AttemptsInFlight()
    private let sweeper: WorkerThread?
    let stats = EngineStats()
    let audit: AuditLog
    let logger: Logger
    /// Wall-clock seconds; injectable for tests.
    let now: @Sendable () -> Int64

    /// Starts the pools' threads and the session sweeper. The engine uses `store` and
    /// `pepper` until `shutdown`. `monotonic` (nanoseconds) times the unlock sessions and
    /// the security key's tokens; a test injects it, and then sweeps with
    /// `endExpiredSessions()` itself. `loopBacklog` is the one the calling event loop sets
    /// (`Server`); without a loop, it always says that others wait.
    public init(
        settings: Settings,
        store: VaultStore,
        pepper: Pepper,
        logger: Logger,
        now: @escaping @Sendable () -> Int64 = WallClock.seconds,
        monotonic: (@Sendable () -> UInt64)? = nil,
        loopBacklog: LoopBacklog = LoopBacklog()
    ) throws(SystemError) {
        self.settings = settings
        self.loopBacklog = loopBacklog
        self.store = store
        self.pepper = pepper
        self.logger = logger
        self.audit = AuditLog(logger: logger)
        self.now = now
        kdfPool = try WorkPool(
            name: "pv-kdf", threads: settings.kdfThreads,
            queueMax: settings.kdfQueueMax, perUidMax: settings.kdfQueuePerUid,
            adminReserve: Self.kdfAdminReserve(queueMax: settings.kdfQueueMax, perUid: settings.kdfQueuePerUid)
        )
        storeQueue = try WorkPool(
            name: "pv-store", threads: 1,
            queueMax: settings.storeQueueMax, perUidMax: settings.storeQueuePerUid
        )
        // One signature per connection at most waits (a connection has one call in flight).
        signingQueue = try WorkPool(
            name: "pv-sign", threads: 1,
            queueMax: settings.storeQueueMax, perUidMax: settings.storeQueuePerUid
        )
        let table = SessionTable(
            limits: .init(maxTtlSeconds: settings.sessionMaxTtlSeconds, maxPerUid: settings.sessionsPerUid),
            now: monotonic ?? MonotonicClock.nanoseconds
        )
        sessions = table
        // A new token may be due before the sweeper's next deadline: it is woken to look.
        let tokens = try SecurityKeyTokens(now: monotonic ?? MonotonicClock.nanoseconds) {
            table.lock.withLock { table.lock.signal() }
        }
        securityKeyTokens = tokens
        let audit = self.audit
        sweeper = monotonic == nil
            ? try WorkerThread.spawn(name: "pv-sessions") { Self.sweep(table, tokens: tokens, audit: audit) }
            : nil
    }

    /// The KDF queue places kept for admins: one uid's quota, at most a quarter of the
    /// queue (8 of 64 by default), so that nine uids of one user cannot fill it against
    /// root. The store queue needs none: it holds one call per connection, and the
    /// transport keeps connections for admins.
    static func kdfAdminReserve(queueMax: Int, perUid: Int) -> Int {
        min(perUid, queueMax / 4)
    }

    /// KDF threads running.
    public var kdfThreadCount: Int { kdfPool.threadCount }

    /// Whether any request is queued or running, or a key is unlocked: the daemon is
    /// not idle while one is (an exit would end the session before its time).
    public var hasWork: Bool {
        let kdf = kdfPool.snapshot, store = storeQueue.snapshot, signing = signingQueue.snapshot
        return kdf.queued + kdf.running + store.queued + store.running + signing.queued + signing.running > 0
            || sessions.count > 0
    }

    /// Refuses new work, lets queued jobs run (a cancelled one is dropped unrun) and
    /// joins the threads. The store stays open: its owner closes it.
    /// Every unlock session ends (its key zeroed) once the pools have stopped.
    public func shutdown() {
        kdfPool.shutdown()
        storeQueue.shutdown()
        signingQueue.shutdown()
        recordEnded(sessions.endEverything(stopping: true), .daemonExit)
        securityKeyTokens.endAll()
        sweeper?.join()
    }

    /// Starts `request` from `caller`; the answer reaches `answer` exactly once, from
    /// whichever thread finishes the work — unless `isCancelled` turns true (the peer
    /// left): a queued job is then dropped unrun, having checked no PIN and counted
    /// nothing, and a running one is not answered (what it counted stays counted; an
    /// Unlock opens no session).
    public func submit(
        _ request: VaultRequest,
        from caller: Caller,
        isCancelled: @escaping @Sendable () -> Bool,
        answer: @escaping @Sendable (Result<VaultResult, VaultError>) -> Void
    ) {
        let call = Call(caller: caller, answer: answer, isCancelled: isCancelled)
        switch request {
        case .getPolicy:
            call.finish(.success(.policy(settings.policy, settings.lockout)))
        case .checkPin(let pin):
            call.finish(.success(.checkPin(violations: settings.policy.violations(of: pin))))
        case .getStats:
            // Aggregates over every uid would tell one user when others authenticate.
            call.finish(caller.isAdmin ? .success(.stats(stats.snapshot(kdf: kdfPool.snapshot))) : .failure(.permissionDenied))
        case .register(let user, let pin, let label, let purpose, let algorithm):
            register(call, user: user, pin: pin, label: label, purpose: purpose, algorithm: algorithm)
        case .list(let user, let ownerUid, let purpose):
            list(call, user: user, ownerUid: ownerUid, purpose: purpose)
        case .authenticate(let user, let keyId, let pin, let challenge, let ownerUid):
            authenticate(call, user: user, keyId: keyId, pin: pin, challenge: challenge, ownerUid: ownerUid)
        case .changePin(let user, let keyId, let currentPin, let newPin):
            changePin(call, user: user, keyId: keyId, currentPin: currentPin, newPin: newPin)
        case .beginUnregister(let user, let keyId, let pin):
            beginUnregister(call, user: user, keyId: keyId, pin: pin)
        case .commitUnregister(let keyId, let token):
            finishUnregister(call, keyId: keyId, token: token, commit: true)
        case .abortUnregister(let keyId, let token):
            finishUnregister(call, keyId: keyId, token: token, commit: false)
        case .wipe(let user, let keyId, let pin, let ownerUid):
            wipe(call, user: user, keyId: keyId, pin: pin, ownerUid: ownerUid)
        case .unblock(let ownerUid, let user, let keyId):
            unblock(call, ownerUid: ownerUid, user: user, keyId: keyId)
        case .reset:
            reset(call)
        case .unlock(let user, let keyId, let pin, let ttlSeconds, let boundConnection, let constraints):
            unlock(
                call, user: user, keyId: keyId, pin: pin, ttlSeconds: ttlSeconds, boundConnection: boundConnection,
                constraints: constraints
            )
        case .lock(let keyId, let access):
            lock(call, keyId: keyId, access: access)
        case .sign(let keyId, let message, let access, let context):
            sign(call, keyId: keyId, message: message, access: access, context: context)
        case .addSSHCertificate(let keyId, let certificate):
            addCertificate(call, keyId: keyId, certificate: certificate)
        case .removeSSHCertificate(let keyId, let certificate):
            removeCertificate(call, keyId: keyId, certificate: certificate)
        case .securityKeyRetries:
            securityKeyRetries(call)
        case .securityKeyToken(let pinHash, let channel, let permissions, let rpId):
            securityKeyToken(call, pinHash: pinHash, channel: channel, permissions: permissions, rpId: rpId)
        case .securityKeyChangePin(let pinHash, let newPin):
            securityKeyChangePin(call, pinHash: pinHash, newPin: newPin)
        case .securityKeyReset:
            securityKeyReset(call)
        case .makePasskey(let channel, let rpId, let userHandle, let userName, let displayName, let algorithm, let clientDataHash):
            makePasskey(
                call, channel: channel, rpId: rpId, userHandle: userHandle, userName: userName, displayName: displayName,
                algorithm: algorithm, clientDataHash: clientDataHash)
        case .passkeyAssertions(let channel, let rpId, let allowList, let clientDataHash, let presence):
            passkeyAssertions(call, channel: channel, rpId: rpId, allowList: allowList, clientDataHash: clientDataHash, presence: presence)
        case .passkeys(let channel, let rpIdHash):
            passkeys(call, channel: channel, rpIdHash: rpIdHash)
        case .deletePasskey(let channel, let credentialId):
            deletePasskey(call, channel: channel, credentialId: credentialId)
        case .unlockedKeys(let access):
            call.finish(.success(.unlockedKeys(sessions.views(owner: caller.uid, wallNow: now()).filter { access.serves($0.purpose) })))
        }
    }

    /// One request's way back, and whether anyone still waits for it.
    struct Call: Sendable {
        let caller: Caller
        let answer: @Sendable (Result<VaultResult, VaultError>) -> Void
        let isCancelled: @Sendable () -> Bool

        /// Answers, unless the call is cancelled: its peer has left, and an answer
        /// would reach no one (its work, counted attempts included, stays done).
        func finish(_ result: Result<VaultResult, VaultError>) {
            guard !isCancelled() else { return }
            answer(result)
        }
    }
}
