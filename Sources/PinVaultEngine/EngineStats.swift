import PinVaultSystem
import Synchronization

/// The engine's counters for GetStats. Lock-free; read as one snapshot. (What the
/// sockets count — connections, messages — is the transport's `ServerStats`.)
public final class EngineStats: Sendable {
    private let startedAt = MonotonicClock.milliseconds()
    private let authenticationsSucceeded = Atomic<Int>(0)
    private let authenticationsFailed = Atomic<Int>(0)
    private let lockouts = Atomic<Int>(0)
    private let busy = Atomic<Int>(0)
    private let kdfEvaluations = Atomic<Int>(0)

    public init() {}

    func authenticationSucceeded() { authenticationsSucceeded.add(1, ordering: .relaxed) }
    func authenticationFailed() { authenticationsFailed.add(1, ordering: .relaxed) }
    /// A wrong PIN that throttled, blocked or wiped its credential.
    func lockedOut() { lockouts.add(1, ordering: .relaxed) }
    func refusedBusy() { busy.add(1, ordering: .relaxed) }
    /// One Argon2id run is about to start.
    func kdfEvaluated() { kdfEvaluations.add(1, ordering: .relaxed) }

    public struct Snapshot: Equatable, Sendable {
        public var authenticationsSucceeded: Int
        public var authenticationsFailed: Int
        public var lockouts: Int
        public var busyRefusals: Int
        public var kdfEvaluations: Int
        /// KDF jobs waiting and running now.
        public var kdfQueued: Int
        public var kdfRunning: Int
        public var uptimeSeconds: Int
    }

    func snapshot(kdf: WorkPool.Snapshot) -> Snapshot {
        Snapshot(
            authenticationsSucceeded: authenticationsSucceeded.load(ordering: .relaxed),
            authenticationsFailed: authenticationsFailed.load(ordering: .relaxed),
            lockouts: lockouts.load(ordering: .relaxed),
            busyRefusals: busy.load(ordering: .relaxed),
            kdfEvaluations: kdfEvaluations.load(ordering: .relaxed),
            kdfQueued: kdf.queued,
            kdfRunning: kdf.running,
            uptimeSeconds: Int((MonotonicClock.milliseconds() - startedAt) / 1000)
        )
    }
}
