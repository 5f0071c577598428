import Logging
import PinVaultCore
import PinVaultCrypto
import PinVaultStore

/// The `io.pinvault.Vault` methods (DESIGN §1–§6) over the store, the sealing and
/// the lockout rules.
///
/// Nothing here runs on the event loop except argument checks that cost nothing
/// (policy checks, permission checks). Every store access goes to the serial store
/// queue, every KDF to the bounded KDF pool; a call that finds a pool full answers
/// `Busy` at once. Each state change is one store transaction, and a PIN attempt is
/// counted durably before the KDF runs.
final class VaultService: Sendable {
    /// What the service needs of the configuration.
    struct Settings: Sendable {
        var policy: PinPolicy
        var lockout: LockoutPolicy
        /// Parameters for new seals; weaker records are upgraded on use.
        var kdf: KDFParameters
        var unregisterExpirySeconds: Int64
        var maxCredentialsPerUser: Int
        var maxCredentialsPerUid: Int
    }

    let settings: Settings
    let store: VaultStore
    let pepper: Pepper
    let kdfPool: WorkPool
    let storeQueue: WorkPool
    let stats: ServiceStats
    let audit: AuditLog
    let logger: Logger
    /// Wall-clock seconds; injectable for tests.
    let now: @Sendable () -> Int64

    init(
        settings: Settings,
        store: VaultStore,
        pepper: Pepper,
        kdfPool: WorkPool,
        storeQueue: WorkPool,
        stats: ServiceStats,
        logger: Logger,
        now: @escaping @Sendable () -> Int64 = wallClockSeconds
    ) {
        self.settings = settings
        self.store = store
        self.pepper = pepper
        self.kdfPool = kdfPool
        self.storeQueue = storeQueue
        self.stats = stats
        self.logger = logger
        self.audit = AuditLog(logger: logger)
        self.now = now
    }

    /// Starts `request`; the answer reaches `reply` exactly once, from whichever
    /// thread finishes the work (never, when the connection went away first).
    func handle(_ request: VaultRequest, peer: Peer, reply: @escaping @Sendable (Result<VaultResult, ServiceError>) -> Void, isCancelled: @escaping @Sendable () -> Bool) {
        let call = Call(peer: peer, reply: reply, isCancelled: isCancelled)
        switch request {
        case .getPolicy:
            call.finish(.success(.policy))
        case .checkPin(let pin):
            call.finish(.success(.checkPin(violations: settings.policy.violations(of: pin))))
        case .getStats:
            // Aggregates over every uid would tell one user when others authenticate.
            call.finish(call.peer.isAdmin ? .success(.stats) : .failure(.permissionDenied))
        case .register(let user, let pin, let label):
            register(call, user: user, pin: pin, label: label)
        case .list(let user, let ownerUid):
            list(call, user: user, ownerUid: ownerUid)
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
        }
    }

    /// One call's way back, and whether anyone still waits for it.
    struct Call: Sendable {
        let peer: Peer
        let reply: @Sendable (Result<VaultResult, ServiceError>) -> Void
        let isCancelled: @Sendable () -> Bool

        func finish(_ result: Result<VaultResult, ServiceError>) { reply(result) }
    }

    // MARK: Executors

    /// Runs `work` on the store queue. `work` answers with a result, or nil when it
    /// handed the call on (to the KDF pool) and that will answer instead.
    func onStore(_ call: Call, _ work: @escaping @Sendable () throws -> VaultResult?) {
        // A call whose peer left before its turn is dropped unrun (`WorkPool`).
        let admission = storeQueue.submitAnswering(uid: call.peer.uid, isCancelled: call.isCancelled) { [self] in
            run(call, work)
        }
        refuseIfBusy(call, admission)
    }

    /// Hands `work` to the KDF pool; throws `busy` when the pool is full, so that a
    /// refusal comes before anything was counted.
    func onKDF(_ call: Call, _ work: @escaping @Sendable () throws -> VaultResult) throws(ServiceError) {
        // A call whose peer left before its turn is dropped unrun: no PIN was checked.
        let admission = kdfPool.submitAnswering(uid: call.peer.uid, isCancelled: call.isCancelled) { [self] in
            run(call, work)
        }
        if case .busy(let milliseconds) = admission {
            stats.refusedBusy()
            throw .busy(retryAfterMilliseconds: milliseconds)
        }
    }

    private func refuseIfBusy(_ call: Call, _ admission: WorkPool.Admission) {
        if case .busy(let milliseconds) = admission {
            stats.refusedBusy()
            call.finish(.failure(.busy(retryAfterMilliseconds: milliseconds)))
        }
    }

    /// Runs `work` on a pool thread; returns the answer for the pool to send once
    /// the job's slot is free (nil when the work handed the call on).
    private func run(_ call: Call, _ work: () throws -> VaultResult?) -> WorkPool.Answer? {
        let result: Result<VaultResult, ServiceError>
        do {
            guard let value = try work() else { return nil }
            result = .success(value)
        } catch let error as ServiceError {
            result = .failure(error)
        } catch {
            // Store and system failures are the operator's business, not the peer's.
            logger.error("call failed", metadata: ["uid": "\(call.peer.uid)", "error": "\(error)"])
            result = .failure(.internalError)
        }
        return { call.finish(result) }
    }
}
