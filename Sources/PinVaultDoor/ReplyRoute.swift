import PinVaultCrypto
import Synchronization

/// One message in flight: who sent it, whether anyone still waits for its reply, and
/// how the reply gets back to the event loop. Pool threads hold it; the loop cancels
/// it when the connection goes, so that work not yet begun (a PIN check that has not
/// counted) is dropped.
public final class ReplyRoute: Sendable {
    public let peer: Peer
    public let connection: ConnectionID
    /// The peer had closed the connection when this message was read, so a reply
    /// would reach nobody: a handler runs such a message only if it wants no reply
    /// (a Varlink `oneway` call), and ends any other with `finishWithoutReply()`.
    public let peerHasLeft: Bool
    private let oneway = Atomic<Bool>(false)
    private let cancelled = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)
    /// Where the reply is written: the connection's buffer, empty and zeroed when the
    /// message is handed over, and written only by the one `send` that counts.
    private let reply: ReplyBuffer
    private let deliver: @Sendable (ReplyBuffer) -> Void

    /// A route for a message from `peer` whose reply is written into `reply` and handed
    /// to `deliver` (the event loop, or an in-process harness).
    public init(peer: Peer, connection: ConnectionID, peerHasLeft: Bool, reply: ReplyBuffer,
         deliver: @escaping @Sendable (ReplyBuffer) -> Void) {
        self.peer = peer
        self.connection = connection
        self.peerHasLeft = peerHasLeft
        self.reply = reply
        self.deliver = deliver
    }

    /// True once the connection has gone: work not yet begun should be dropped.
    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Whether `markOneway()` was called.
    public var isOneway: Bool { oneway.load(ordering: .acquiring) }

    /// Declares a message that wants no reply (a Varlink `oneway` call), before its work
    /// starts: its reply is not written, and a peer closing the connection meanwhile
    /// does not cancel it.
    public func markOneway() { oneway.store(true, ordering: .releasing) }

    package func cancel() { cancelled.store(true, ordering: .releasing) }

    /// Has `encode` write the reply — one whole frame — into the connection's buffer and
    /// hands it to the loop (a oneway message's reply is not written). Only the first
    /// call counts: a later one writes nothing, so a reply the loop is sending is never
    /// touched.
    public func send(encoding encode: (ReplyBuffer) -> Void) {
        guard !finished.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if !isOneway { encode(reply) }
        deliver(reply)
    }

    /// Ends the message with nothing to send (a oneway message, or one whose reply would
    /// reach nobody): the connection goes on to the next message.
    public func finishWithoutReply() {
        send { _ in }
    }
}
