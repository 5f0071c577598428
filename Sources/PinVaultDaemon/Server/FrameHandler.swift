/// What the server asks of the layer above it: make sense of one frame.
protocol FrameHandler: Sendable {
    /// Called on the event loop with one frame (the bytes before its NUL). The bytes
    /// are zeroed as soon as this returns, so everything the call needs must be
    /// decoded before then — secrets straight into `SecretBytes`.
    func handle(frame: UnsafeRawBufferPointer, peer: Peer) -> FrameDisposition
}

enum FrameDisposition {
    /// Not a Varlink call at all (not a JSON object, no method): the connection closes.
    case protocolViolation(String)
    /// A call to start with its context; `start` runs on the loop at once and must
    /// not block: it answers inline or hands the work to a pool.
    case call(oneway: Bool, start: (CallContext) -> Void)
}

/// The bounds the server enforces per DESIGN §2 and §7 `[server]`.
struct ServerLimits: Sendable {
    var maxMessageBytes: Int
    var maxConnections: Int
    var maxConnectionsPerUid: Int
    var idleTimeoutSeconds: Int
    /// Empty: every local user may connect.
    var allowedGroups: Set<UInt32>
    var adminGroup: UInt32?
    /// How long a graceful stop waits for calls in flight.
    var shutdownGraceSeconds: Int = 15
}
