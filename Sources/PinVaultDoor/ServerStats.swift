import Synchronization

/// What the server counts: connections open now, and messages read since the start.
/// Lock-free.
public final class ServerStats: Sendable {
    private let connections = Atomic<Int>(0)
    private let messages = Atomic<Int>(0)

    public init() {}

    /// Connections open now, over every socket served.
    public var activeConnections: Int { connections.load(ordering: .relaxed) }
    /// Messages read since the start, over every socket served.
    public var messagesReceived: Int { messages.load(ordering: .relaxed) }

    package func connectionOpened() { connections.add(1, ordering: .relaxed) }
    package func connectionClosed() { connections.subtract(1, ordering: .relaxed) }
    package func messageReceived() { messages.add(1, ordering: .relaxed) }
}
