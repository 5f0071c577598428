import Synchronization

/// Whether an event loop has more work waiting than the request it is on: events left
/// from its last `epoll_wait`, or bytes after the request in the same connection's
/// input. The loop sets it before it hands each request to a door; work the loop does
/// for that request asks it — the engine's signatures on the loop (`SigningBudget`), to
/// tell "someone is waiting for the loop" from "the loop would only wait for the next
/// request". Until a loop sets it, it says someone waits.
public final class LoopBacklog: Sendable {
    private let waiting = Atomic<Bool>(true)

    public init() {}

    public var othersWaiting: Bool { waiting.load(ordering: .relaxed) }

    public func set(othersWaiting: Bool) {
        waiting.store(othersWaiting, ordering: .relaxed)
    }
}
