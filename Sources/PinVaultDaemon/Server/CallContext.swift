import PinVaultProtocol
import Synchronization

/// One call in flight: who made it, whether the peer is still there, and how its
/// reply gets back to the event loop. Worker threads hold it; the loop cancels it
/// when the connection goes away, so a job that has not begun (and so has not
/// counted a PIN attempt) is skipped.
public final class CallContext: Sendable {
    public let peer: Peer
    /// A `oneway` call: the reply is computed but not sent.
    public let oneway: Bool
    private let cancelled = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)
    private let deliver: @Sendable (ReplyBuffer) -> Void

    init(peer: Peer, oneway: Bool, deliver: @escaping @Sendable (ReplyBuffer) -> Void) {
        self.peer = peer
        self.oneway = oneway
        self.deliver = deliver
    }

    /// True once the connection has gone.
    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    func cancel() { cancelled.store(true, ordering: .releasing) }

    /// Hands the encoded reply (one Varlink message with its NUL) to the loop.
    /// Only the first call counts.
    func finish(with reply: ReplyBuffer) {
        guard !finished.exchange(true, ordering: .acquiringAndReleasing) else { return }
        deliver(reply)
    }
}
