import CPinVaultSystem
import Glibc
import Logging
import PinVaultProtocol

/// The event loop: accepts connections, reads NUL-framed requests into secret
/// memory, hands each frame to the `FrameHandler`, and writes replies in order.
///
/// One thread runs it, and it never blocks on anything but `epoll_wait`: work that
/// touches the store or runs a KDF is handed to pools, whose replies come back
/// through `completions` and an eventfd. SIGTERM/SIGINT arrive via a signalfd; the
/// server then stops accepting and reading, lets the calls in flight finish (bounded
/// by `shutdownGraceSeconds`), and returns.
final class VarlinkServer: @unchecked Sendable {
    private static let wakeupToken: UInt64 = 1 << 62
    private static let signalToken: UInt64 = wakeupToken + 1
    private static let firstConnectionToken: UInt64 = 1 << 32

    private let listeners: [UnixListener]
    private let limits: ServerLimits
    private let handler: FrameHandler
    private let logger: Logger
    private let notifier: SystemdNotifier
    private let stats: ServiceStats
    private let epoll: Epoll
    private let wakeup: Wakeup
    private let signals: ShutdownSignals
    private let completions = CompletionQueue()

    private var connections: [UInt64: Connection] = [:]
    private var perUid: [UInt32: Int] = [:]
    private var nextConnectionID = firstConnectionToken
    private var stopping = false
    /// Set while accepting is paused after EMFILE/ENFILE.
    private var acceptPausedUntil: Int64?
    /// Refused connections, logged as a summary so that no peer can flood the log.
    private var refusals = RefusalLog()
    private var loopThread = pthread_self()

    init(
        listeners: [UnixListener],
        limits: ServerLimits,
        handler: FrameHandler,
        stats: ServiceStats,
        notifier: SystemdNotifier,
        logger: Logger
    ) throws(SystemError) {
        self.listeners = listeners
        self.limits = limits
        self.handler = handler
        self.stats = stats
        self.notifier = notifier
        self.logger = logger
        epoll = try Epoll()
        wakeup = try Wakeup()
        signals = try ShutdownSignals()
    }

    /// Serves until a shutdown signal, then drains. Returns the signal's number.
    @discardableResult
    func run() throws(SystemError) -> Int32 {
        loopThread = pthread_self()
        for (index, listener) in listeners.enumerated() {
            try epoll.add(listener.fd, events: .epollIn, token: UInt64(index))
        }
        try epoll.add(wakeup.fd, events: .epollIn, token: Self.wakeupToken)
        try epoll.add(signals.fd, events: .epollIn, token: Self.signalToken)

        let events = UnsafeMutableBufferPointer<epoll_event>.allocate(capacity: 128)
        defer { events.deallocate() }
        var lastWatchdog: Int64 = 0
        var lastIdleSweep: Int64 = 0
        var shutdownDeadline: Int64 = .max
        var signal: Int32 = 0

        while true {
            let now = MonotonicClock.milliseconds()
            if stopping {
                let busy = connections.values.contains { $0.inFlight != nil || $0.hasPendingOutput }
                if !busy || now >= shutdownDeadline { break }
            }
            if let interval = notifier.watchdogInterval, (now - lastWatchdog) * 1000 >= interval {
                notifier.watchdog()
                lastWatchdog = now
            }
            if now - lastIdleSweep >= 1000 {
                closeIdleConnections(now: now)
                refusals.report(now: now, to: logger)
                lastIdleSweep = now
            }
            resumeAcceptingIfDue(now: now)

            try epoll.wait(into: events, timeoutMilliseconds: acceptPausedUntil == nil ? 500 : 100) { token, flags in
                switch token {
                case Self.wakeupToken:
                    wakeup.drain()
                case Self.signalToken:
                    if let received = signals.read(), !stopping {
                        signal = received
                        beginShutdown(signal: received)
                        shutdownDeadline = MonotonicClock.milliseconds() + Int64(limits.shutdownGraceSeconds) * 1000
                    }
                case ..<UInt64(listeners.count):
                    acceptAll(from: listeners[Int(token)])
                default:
                    if let connection = connections[token] {
                        handleEvents(flags, on: connection)
                    }
                }
            }
            deliverCompletions()
        }

        for connection in connections.values {
            close(connection, reason: nil)
        }
        return signal
    }

    // MARK: Accepting

    private func acceptAll(from listener: UnixListener) {
        while !stopping {
            let fd: Int32
            switch listener.accept() {
            case .accepted(let accepted):
                fd = accepted
            case .none:
                return
            case .failed(let code):
                // Out of descriptors or memory: the listener stays readable, so stop
                // watching it for a moment instead of spinning on it.
                pauseAccepting(because: code)
                return
            }
            let peer: Peer
            do {
                peer = try Peer.of(socket: fd, adminGroup: limits.adminGroup)
            } catch {
                refusals.note("unreadable peer credentials")
                Glibc.close(fd)
                continue
            }
            if let refusal = admissionRefusal(for: peer) {
                refusals.note(refusal)
                Glibc.close(fd)
                continue
            }
            do {
                let connection = try Connection(
                    id: nextConnectionID, fd: fd, peer: peer,
                    maxMessageBytes: limits.maxMessageBytes, now: MonotonicClock.milliseconds(),
                    deliver: replyRoute(for: nextConnectionID)
                )
                nextConnectionID += 1
                connections[connection.id] = connection
                perUid[peer.uid, default: 0] += 1
                stats.connectionOpened()
                updateInterest(connection)
            } catch {
                refusals.note("no secret memory for its buffer")
                Glibc.close(fd)
            }
        }
    }

    private func pauseAccepting(because code: Int32) {
        guard acceptPausedUntil == nil else { return }
        for listener in listeners { epoll.remove(listener.fd) }
        acceptPausedUntil = MonotonicClock.milliseconds() + 100
        refusals.note("accept failed: \(SystemError("accept", code: code))")
    }

    private func resumeAcceptingIfDue(now: Int64) {
        guard let until = acceptPausedUntil, now >= until, !stopping else { return }
        acceptPausedUntil = nil
        for (index, listener) in listeners.enumerated() {
            do {
                try epoll.add(listener.fd, events: .epollIn, token: UInt64(index))
            } catch {
                logger.error("cannot watch the listening socket again: \(error)")
            }
        }
    }

    private func admissionRefusal(for peer: Peer) -> String? {
        if !limits.allowedGroups.isEmpty && !peer.isAdmin && !peer.isMember(ofAny: limits.allowedGroups) {
            return "not in access.allowed_groups"
        }
        if connections.count >= limits.maxConnections {
            return "server.max_connections reached"
        }
        if perUid[peer.uid, default: 0] >= limits.maxConnectionsPerUid {
            return "server.max_connections_per_uid reached"
        }
        return nil
    }

    // MARK: Connection events

    private func handleEvents(_ flags: UInt32, on connection: Connection) {
        if flags & .epollErr != 0 {
            close(connection, reason: nil)
            return
        }
        if flags & .epollOut != 0 {
            switch connection.flush() {
            case .failed:
                close(connection, reason: nil)
                return
            case .wouldBlock, .done:
                break
            }
        }
        if flags & (.epollIn | .epollRdHup | .epollHup) != 0 && !connection.inputClosed {
            reading: for _ in 0..<16 {
                switch connection.input.read(from: connection.fd) {
                case .received:
                    // A read that left free space took all the socket held; another
                    // would only say EAGAIN (level-triggered: anything later wakes us).
                    if connection.input.hasFreeSpace { break reading }
                    continue
                case .wouldBlock, .full:
                    break reading
                case .endOfStream:
                    // What the peer sent before its EOF is still answered.
                    connection.inputClosed = true
                    break reading
                case .failed:
                    close(connection, reason: nil)
                    return
                }
            }
        }
        if flags & .epollHup != 0 {
            // Nobody reads the replies any more: a call waiting for one is cancelled
            // (a PIN check that has not begun never counts).
            if connection.hasPendingOutput || connection.inFlight.map({ !$0.oneway }) == true {
                close(connection, reason: nil)
                return
            }
            connection.peerGone = true
        }
        processFrames(connection)
    }

    /// Starts the next complete frame, when the connection is free for it.
    private func processFrames(_ connection: Connection) {
        guard connections[connection.id] != nil else { return }
        while !stopping && connection.inFlight == nil && !connection.hasPendingOutput {
            let length: Int
            switch connection.input.nextFrame() {
            case .frame(let frameLength):
                length = frameLength
            case .tooLarge:
                close(connection, reason: "no NUL within server.max_message_bytes")
                return
            case .needMore:
                if connection.inputClosed || connection.peerGone {
                    // Everything the peer sent has been answered.
                    close(connection, reason: nil)
                    return
                }
                updateInterest(connection)
                return
            }
            let peer = connection.peer
            let disposition = connection.input.withFrame(length: length) { handler.handle(frame: $0, peer: peer) }
            connection.input.consumeFrame()
            stats.requestReceived()
            switch disposition {
            case .protocolViolation(let reason):
                close(connection, reason: reason)
                return
            case .call(let oneway, let start):
                // A reply could reach nobody: of a departed peer's calls only oneway ones run.
                if connection.peerGone && !oneway { continue }
                let context = makeContext(for: connection, oneway: oneway)
                connection.inFlight = context
                start(context)
                // A call answered on the spot (GetPolicy, a refusal) is written now, not
                // after a turn of the loop: the epoll interest stays as it is and the next
                // pipelined frame starts at once.
                if let reply = completions.take(connection: connection.id),
                   !complete(connection, with: reply, now: MonotonicClock.milliseconds()) {
                    return
                }
            }
        }
        updateInterest(connection)
    }

    /// Ends the connection's call in flight with `reply`: writes it (unless the call was
    /// oneway) and frees the connection for its next frame. False when the write failed
    /// and the connection is closed.
    private func complete(_ connection: Connection, with reply: ReplyBuffer, now: Int64) -> Bool {
        guard let context = connection.inFlight else { return true }
        connection.inFlight = nil
        connection.lastProgress = now
        if context.oneway {
            connection.discard(reply: reply)
        } else {
            connection.enqueue(frame: reply)
            if connection.flush() == .failed {
                close(connection, reason: nil)
                return false
            }
        }
        return true
    }

    private func makeContext(for connection: Connection, oneway: Bool) -> CallContext {
        CallContext(peer: connection.peer, oneway: oneway, reply: connection.reply, deliver: connection.deliver)
    }

    /// How the calls of connection `id` hand their replies back to the loop.
    private func replyRoute(for id: UInt64) -> @Sendable (ReplyBuffer) -> Void {
        let loop = loopThread
        return { [completions, wakeup] reply in
            completions.push(connection: id, reply: reply)
            // Replies made on the loop itself are picked up after the current event;
            // only other threads need to wake it.
            if pthread_equal(pthread_self(), loop) == 0 {
                wakeup.signal()
            }
        }
    }

    private func deliverCompletions() {
        while true {
            let batch = completions.takeAll()
            if batch.isEmpty { return }
            let now = MonotonicClock.milliseconds()
            for (id, reply) in batch {
                // A reply nobody waits for is dropped, and ReplyBuffer zeroes it.
                guard let connection = connections[id], connection.inFlight != nil,
                      complete(connection, with: reply, now: now) else { continue }
                processFrames(connection)
            }
        }
    }

    private func updateInterest(_ connection: Connection) {
        if connection.peerGone {
            // EPOLLHUP is reported whatever the interest, so leave the set for good
            // rather than wake the loop until the last oneway call is done.
            if connection.registeredEvents != nil {
                epoll.remove(connection.fd)
                connection.registeredEvents = nil
            }
            return
        }
        // Level-triggered: EPOLLIN and EPOLLRDHUP are asked for only while the loop
        // will read, or a half-closed peer with a call in flight (or a full buffer)
        // would wake every wait. A full close still reports EPOLLHUP, always.
        var wanted: UInt32 = 0
        if connection.hasPendingOutput {
            wanted = .epollOut
        } else if connection.inFlight == nil && !connection.input.isFull && !stopping && !connection.inputClosed {
            wanted = .epollIn | .epollRdHup
        }
        guard wanted != connection.registeredEvents else { return }
        do {
            if connection.registeredEvents == nil {
                try epoll.add(connection.fd, events: wanted, token: connection.id)
            } else {
                try epoll.modify(connection.fd, events: wanted, token: connection.id)
            }
            connection.registeredEvents = wanted
        } catch {
            logger.error("epoll: \(error)")
            close(connection, reason: nil)
        }
    }

    private func closeIdleConnections(now: Int64) {
        let limit = Int64(limits.idleTimeoutSeconds) * 1000
        for connection in connections.values where connection.inFlight == nil && now - connection.lastProgress > limit {
            close(connection, reason: "idle for server.idle_timeout_seconds")
        }
    }

    private func close(_ connection: Connection, reason: String?) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        if let reason {
            logger.debug("closing connection", metadata: ["uid": "\(connection.peer.uid)", "pid": "\(connection.peer.pid)", "reason": "\(reason)"])
        }
        epoll.remove(connection.fd)
        connection.close()
        if let count = perUid[connection.peer.uid] {
            perUid[connection.peer.uid] = count > 1 ? count - 1 : nil
        }
        stats.connectionClosed()
    }

    private func beginShutdown(signal: Int32) {
        stopping = true
        logger.notice("shutting down on signal \(signal); finishing calls in flight")
        notifier.stopping(status: "Finishing calls in flight")
        for listener in listeners {
            epoll.remove(listener.fd)
            listener.close()
        }
        for connection in connections.values {
            if connection.inFlight == nil && !connection.hasPendingOutput {
                close(connection, reason: nil)
            } else {
                updateInterest(connection)
            }
        }
    }

}
