/// A front door: what the transport asks of the protocol served on a socket. The
/// transport knows sockets, peers and limits; the handler knows its protocol. It is
/// called on the event loop and must never block there: it answers at once or hands
/// the work to a pool, and the reply comes back through the `ReplyRoute` from any
/// thread.
public protocol MessageHandler: Sendable {
    /// The framing state for a new connection.
    func makeFraming() -> any Framing

    /// One message: the frame's payload bytes, which are zeroed as soon as this returns,
    /// so everything the work needs must be decoded before then (secrets straight into
    /// `SecretBytes`). Answer through `route` exactly once — or close the connection,
    /// for a message that breaks the protocol. A message read after its peer left
    /// (`route.peerHasLeft`) is ended with `finishWithoutReply()` unless it wants no
    /// reply anyway: its work would serve nobody.
    func handle(message: UnsafeRawBufferPointer, route: ReplyRoute) -> MessageDisposition

    /// A connection of this handler's socket closed (its calls in flight are cancelled).
    func connectionClosed(_ connection: ConnectionID, peer: Peer)

    /// Whether an idle connection holds state of this door that ends with it (an unlock
    /// session bound to it): then `server.idle_timeout_seconds` does not close it.
    func keepsAlive(_ connection: ConnectionID) -> Bool
}

extension MessageHandler {
    public func connectionClosed(_ connection: ConnectionID, peer: Peer) {}
    public func keepsAlive(_ connection: ConnectionID) -> Bool { false }
}

/// What became of a message.
public enum MessageDisposition: Sendable {
    /// Its reply goes (or went) through the route.
    case accepted
    /// It broke the protocol: the connection closes, for this reason (logged at debug).
    case close(reason: String)
}

/// A connection, as long as the server runs: never reused.
public typealias ConnectionID = UInt64
