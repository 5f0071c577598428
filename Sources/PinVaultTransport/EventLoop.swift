import CPinVaultSystem
import Glibc
import PinVaultDoor
import PinVaultSystem

/// The event loop's state and its steps: a value that `Server.run` owns on its own
/// thread, so that every use of the loop's state is checked by the compiler (each step
/// is a `mutating` method), and a connection's state is reached once per event
/// (`Connection.withState`).
struct EventLoop: ~Copyable {
    static let wakeupToken: UInt64 = 1 << 62
    static let signalToken: UInt64 = wakeupToken + 1
    static let firstConnectionToken: UInt64 = 1 << 32

    let server: Server
    var connections: [ConnectionID: Connection] = [:]
    /// The connections each uid holds, and the places kept for admins and newcomers.
    var connectionShares: UidShares
    /// The locked memory each uid's input buffers took beyond their first page.
    var lockedInput: UidShares
    var nextConnectionID = firstConnectionToken
    var stopping = false
    /// Set while accepting is paused after EMFILE/ENFILE.
    var acceptPausedUntil: Int64?
    /// Refused connections, logged as a summary so that no peer can flood the log.
    var refusals = RefusalLog()
    /// Since when (monotonic milliseconds) there has been no connection and no work.
    var idleSince: Int64?
    let loopThread = pthread_self()
    /// Where `epoll_wait` reports, one turn at a time.
    private let events = UnsafeMutableBufferPointer<epoll_event>.allocate(capacity: 128)
    /// Work of this turn not yet done (`Server.backlog`): events from the wait, or replies
    /// finished off the loop and not yet delivered.
    var eventsLeft = 0
    private var lastWatchdog: Int64 = 0
    private var lastIdleSweep: Int64 = 0
    private var shutdownDeadline: Int64 = .max
    /// Why the loop stops, once it does (the signal that began the shutdown).
    private var stopReason = Server.Stop.signal(0)

    init(server: Server) {
        self.server = server
        connectionShares = UidShares(server.limits.connectionShares)
        lockedInput = UidShares(server.limits.lockedInputShares)
    }

    deinit {
        events.deallocate()
    }

    /// Serves until a shutdown signal (then drains) or an idle exit.
    mutating func run() throws(SystemError) -> Server.Stop {
        try watchSockets()
        while true {
            if let stop = try turn(timeoutMilliseconds: nil) {
                closeAll()
                return stop
            }
        }
    }

    /// Registers the served sockets, the wake-up eventfd and the signalfd with epoll:
    /// once, before the first turn.
    mutating func watchSockets() throws(SystemError) {
        for (index, door) in server.doors.enumerated() {
            try server.epoll.add(door.listener.fd, events: .epollIn, token: UInt64(index))
        }
        try server.epoll.add(server.wakeup.fd, events: .epollIn, token: Self.wakeupToken)
        try server.epoll.add(server.signals.fd, events: .epollIn, token: Self.signalToken)
    }

    /// One turn of the loop: the timers (watchdog, idle sweep, paused accepting), one
    /// `epoll_wait` of at most `timeoutMilliseconds` (nil: 500 ms, 100 while accepting is
    /// paused), every event it reported, then the replies finished meanwhile. Returns
    /// why the loop stops, when it does: a drained shutdown, or an idle exit.
    mutating func turn(timeoutMilliseconds: Int32?) throws(SystemError) -> Server.Stop? {
        let now = MonotonicClock.milliseconds()
        if stopping {
            let busy = connections.values.contains { $0.withState { $0.inFlight != nil || $0.hasPendingOutput } }
            if !busy || now >= shutdownDeadline { return stopReason }
        }
        if let interval = server.notifier.watchdogInterval, (now - lastWatchdog) * 1000 >= interval {
            server.notifier.watchdog()
            lastWatchdog = now
        }
        if now - lastIdleSweep >= 1000 {
            closeIdleConnections(now: now)
            refusals.report(now: now, to: server.logger)
            lastIdleSweep = now
            if !stopping && idleLongEnough(now: now) {
                return .idle
            }
        }
        resumeAcceptingIfDue(now: now)
        // The doors that keep time (CTAPHID's KEEPALIVE): what is due now goes out before
        // the wait, and the wait ends when the next is due.
        var timeout = timeoutMilliseconds ?? (acceptPausedUntil == nil ? 500 : 100)
        if let due = tickDoors(now: now) {
            timeout = min(timeout, Int32(clamping: max(due - now, 0)))
        }
        deliverPushes()

        let ready = try server.epoll.wait(into: events, timeoutMilliseconds: timeout)
        var woken = false
        for index in 0..<ready {
            // Replies already finished wait behind this event too (delivered after it).
            eventsLeft = ready - index - 1 + (server.completions.isEmpty ? 0 : 1)
            let token = events[index].data.u64
            switch token {
            case Self.wakeupToken:
                server.wakeup.drain()
                woken = true
            case Self.signalToken:
                if let received = server.signals.read(), !stopping {
                    stopReason = .signal(received)
                    beginShutdown(signal: received)
                    shutdownDeadline = MonotonicClock.milliseconds() + Int64(server.limits.shutdownGraceSeconds) * 1000
                }
            case ..<UInt64(server.doors.count):
                acceptAll(from: Int(token))
            default:
                if let connection = connections[token] {
                    handleEvents(events[index].events, on: connection)
                } else {
                    _ = server.descriptors.fire(token)
                }
            }
        }
        eventsLeft = 0
        // Every post signals the wake-up: a turn without it has nothing posted to run.
        if woken { server.descriptors.runPosted() }
        deliverCompletions()
        deliverPushes()
        return nil
    }

    /// Gives each door that keeps time the clock; returns the soonest time one wants it again.
    func tickDoors(now: Int64) -> Int64? {
        var soonest: Int64?
        for pushing in server.pushingDoors {
            guard let due = pushing.tick(now: now) else { continue }
            soonest = min(soonest ?? due, due)
        }
        return soonest
    }

    /// Closes every connection (their messages in flight are cancelled).
    mutating func closeAll() {
        for connection in Array(connections.values) {
            connection.withState { close(connection, &$0, reason: nil) }
        }
    }

    /// Whether the server has had no connection and no work for `exitOnIdleSeconds`
    /// and no connection waits on a socket. A connection arriving after that last look
    /// waits in the socket's backlog for the next start, which systemd makes on it.
    mutating func idleLongEnough(now: Int64) -> Bool {
        let limit = Int64(server.limits.exitOnIdleSeconds) * 1000
        guard limit > 0, connections.isEmpty, acceptPausedUntil == nil, !server.hasWork() else {
            idleSince = nil
            return false
        }
        let since = idleSince ?? now
        idleSince = since
        guard now - since >= limit else { return false }
        if server.doors.contains(where: { $0.listener.hasPendingConnection }) {
            idleSince = nil
            return false
        }
        server.logger.notice("exiting after server.exit_on_idle_seconds with no connection and no work")
        server.notifier.stopping(status: "Idle: exiting until the next connection")
        return true
    }

    mutating func beginShutdown(signal: Int32) {
        stopping = true
        server.logger.notice("shutting down on signal \(signal); finishing calls in flight")
        server.notifier.stopping(status: "Finishing calls in flight")
        for door in server.doors {
            server.epoll.remove(door.listener.fd)
            door.listener.close()
        }
        for connection in Array(connections.values) {
            connection.withState { state in
                if state.inFlight == nil && !state.hasPendingOutput {
                    close(connection, &state, reason: nil)
                } else {
                    updateInterest(connection, &state)
                }
            }
        }
    }
}
