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
    /// Where the reply is written: the connection's buffer, empty and zeroed when the
    /// call starts, and written only by the one `finish` that counts.
    private let reply: ReplyBuffer
    private let deliver: @Sendable (ReplyBuffer) -> Void

    init(peer: Peer, oneway: Bool, reply: ReplyBuffer, deliver: @escaping @Sendable (ReplyBuffer) -> Void) {
        self.peer = peer
        self.oneway = oneway
        self.reply = reply
        self.deliver = deliver
    }

    /// True once the connection has gone.
    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    func cancel() { cancelled.store(true, ordering: .releasing) }

    /// Has `encode` write the reply (one Varlink message with its NUL) into the call's
    /// buffer and hands it to the loop. Only the first call counts: a later one writes
    /// nothing, so a reply the loop is sending is never touched.
    func finish(encoding encode: (ReplyBuffer) -> Void) {
        guard !finished.exchange(true, ordering: .acquiringAndReleasing) else { return }
        encode(reply)
        deliver(reply)
    }
}
