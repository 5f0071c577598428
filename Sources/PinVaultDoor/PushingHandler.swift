import PinVaultCrypto

/// A door that also writes to its connections when no message asks — CTAPHID's KEEPALIVE
/// while a request is pending, or a reply that comes back after the reports behind it
/// were read — and keeps time (a message's continuation packets that are late).
///
/// Its `handle(message:route:)` answers every message at once (the route is finished before
/// it returns), so the loop goes on reading while the door's own work is pending; what the
/// door has to say later goes through the connection's `ConnectionOutlet`.
public protocol PushingHandler: MessageHandler {
    /// A connection of this door's socket opened: `outlet` writes to it, from any thread,
    /// until it closes (`connectionClosed`).
    func connectionOpened(_ connection: ConnectionID, peer: Peer, outlet: ConnectionOutlet)

    /// The loop's clock, in monotonic milliseconds: do what is due (through the outlets),
    /// and return when the door next needs the clock (nil: not until a message comes). The
    /// loop calls it every turn, and waits no longer than that.
    func tick(now: Int64) -> Int64?
}

/// Where a `PushingHandler` writes to one connection, from any thread.
public final class ConnectionOutlet: Sendable {
    public let connection: ConnectionID
    private let push: @Sendable (ReplyBuffer) -> Void

    package init(connection: ConnectionID, push: @escaping @Sendable (ReplyBuffer) -> Void) {
        self.connection = connection
        self.push = push
    }

    /// Queues `bytes` to be written after everything queued before: the loop owns the buffer
    /// from here on and zeroes it once its bytes are copied out. Bytes for a connection that
    /// closed meanwhile are zeroed and dropped.
    public func send(_ bytes: ReplyBuffer) {
        push(bytes)
    }
}
