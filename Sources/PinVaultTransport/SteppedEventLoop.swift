import Logging
import PinVaultDoor
import PinVaultSystem

/// The server's event loop driven by its caller, one turn at a time, on the caller's
/// thread: for harnesses (the transport fuzzer, `Fuzz/`) that must run the real loop —
/// reading, framing, handing messages over, writing and zeroing replies, half-closes —
/// over sockets they connected themselves, with peers they choose. The daemon never
/// uses it: `Server.run` turns the same loop (`EventLoop.turn`) until it stops.
///
/// Thread-bound: made, turned and dropped on one thread, which is then the loop's
/// thread (replies made on it are picked up without a wake-up, as in the daemon).
public final class SteppedEventLoop {
    private var loop: EventLoop

    /// A loop serving `door` within `limits`, counting into `stats`, logging to `logger`
    /// (the reason a connection is closed is logged at debug, with its peer's pid),
    /// telling `backlog` before each message whether more work waits behind it.
    /// `door.listener` is watched as in the daemon: a connection made to it is accepted,
    /// its peer read from the kernel and admitted by `limits`.
    public init(
        door: Server.Door, limits: ServerLimits, stats: ServerStats, logger: Logger, backlog: LoopBacklog = LoopBacklog()
    ) throws(SystemError) {
        let server = try Server(
            doors: [door], limits: limits, stats: stats, notifier: SystemdNotifier(), logger: logger, backlog: backlog)
        loop = EventLoop(server: server)
        try loop.watchSockets()
    }

    deinit {
        loop.closeAll()
    }

    /// Serves the connected socket `fd` (which the loop owns from now on) as coming from
    /// `peer`, through the door's handler, without the admission checks a listener's
    /// connection passes. Nil when no buffer could be had for it: `fd` is closed then.
    public func adopt(fd: Int32, peer: Peer) -> ConnectionID? {
        loop.admit(fd: fd, peer: peer, door: 0)
    }

    /// One turn: the loop's timers, one `epoll_wait` of at most `timeoutMilliseconds`,
    /// the events it reported and the replies finished meanwhile. Returns why the loop
    /// would stop (an idle exit, a drained shutdown), or nil.
    @discardableResult
    public func turn(timeoutMilliseconds: Int32) throws(SystemError) -> Server.Stop? {
        try loop.turn(timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Whether connection `id` is still open (the loop has not closed it).
    public func isOpen(_ id: ConnectionID) -> Bool {
        loop.connections[id] != nil
    }

    /// Connections open now.
    public var openConnections: Int { loop.connections.count }

    /// Whether any connection has a message handed to its handler and not yet answered.
    public var hasMessageInFlight: Bool {
        loop.connections.values.contains { $0.withState { $0.inFlight != nil } }
    }

    /// Closes every connection, as the daemon does when it stops.
    public func closeAll() {
        loop.closeAll()
    }
}
