import Synchronization

/// Counters for GetStats. Lock-free; read as one snapshot.
public final class ServiceStats: Sendable {
    private let startedAt = MonotonicClock.milliseconds()
    private let requests = Atomic<Int>(0)
    private let connections = Atomic<Int>(0)
    private let authenticationsSucceeded = Atomic<Int>(0)
    private let authenticationsFailed = Atomic<Int>(0)
    private let lockouts = Atomic<Int>(0)
    private let busy = Atomic<Int>(0)
    private let kdfEvaluations = Atomic<Int>(0)

    public init() {}

    func requestReceived() { requests.add(1, ordering: .relaxed) }
    func connectionOpened() { connections.add(1, ordering: .relaxed) }
    func connectionClosed() { connections.subtract(1, ordering: .relaxed) }
    func authenticationSucceeded() { authenticationsSucceeded.add(1, ordering: .relaxed) }
    func authenticationFailed() { authenticationsFailed.add(1, ordering: .relaxed) }
    /// A wrong PIN that throttled, blocked or wiped its credential.
    func lockedOut() { lockouts.add(1, ordering: .relaxed) }
    func refusedBusy() { busy.add(1, ordering: .relaxed) }
    /// One Argon2id run is about to start.
    func kdfEvaluated() { kdfEvaluations.add(1, ordering: .relaxed) }

    struct Snapshot: Equatable {
        var requests: Int
        var activeConnections: Int
        var authenticationsSucceeded: Int
        var authenticationsFailed: Int
        var lockouts: Int
        var busyRefusals: Int
        var kdfEvaluations: Int
        var uptimeSeconds: Int
    }

    func snapshot() -> Snapshot {
        Snapshot(
            requests: requests.load(ordering: .relaxed),
            activeConnections: connections.load(ordering: .relaxed),
            authenticationsSucceeded: authenticationsSucceeded.load(ordering: .relaxed),
            authenticationsFailed: authenticationsFailed.load(ordering: .relaxed),
            lockouts: lockouts.load(ordering: .relaxed),
            busyRefusals: busy.load(ordering: .relaxed),
            kdfEvaluations: kdfEvaluations.load(ordering: .relaxed),
            uptimeSeconds: Int((MonotonicClock.milliseconds() - startedAt) / 1000)
        )
    }
}
