import CPinVaultSystem
import Glibc
import Logging
import PinVaultCrypto
import PinVaultSystem

/// The event loop: accepts connections on each served socket, reads framed messages
/// into secret memory, hands each to that socket's `MessageHandler`, and writes the
/// replies in order. It knows sockets, peers and limits; what a message means is the
/// handler's business.
///
/// One thread runs it, and it never blocks on anything but `epoll_wait`: handlers hand
/// slow work to pools, whose replies come back through `completions` and an eventfd.
/// SIGTERM/SIGINT arrive via a signalfd; the server then stops accepting and reading,
/// lets the messages in flight finish (bounded by `shutdownGraceSeconds`), and returns.
public final class Server: @unchecked Sendable {
    /// One socket and the protocol served on it.
    public struct Door: Sendable {
        public let listener: UnixListener
        public let handler: any MessageHandler

        public init(listener: UnixListener, handler: any MessageHandler) {
            self.listener = listener
            self.handler = handler
        }
    }

    static let wakeupToken: UInt64 = 1 << 62
    static let signalToken: UInt64 = wakeupToken + 1
    static let firstConnectionToken: UInt64 = 1 << 32

    let doors: [Door]
    let limits: ServerLimits
    let logger: Logger
    let notifier: SystemdNotifier
    let stats: ServerStats
    let epoll: Epoll
    let wakeup: Wakeup
    let signals: ShutdownSignals
    let completions = CompletionQueue()

    // Loop-only state.
    var connections: [ConnectionID: Connection] = [:]
    var perUid: [UInt32: Int] = [:]
    var nextConnectionID = firstConnectionToken
    var stopping = false
    /// Set while accepting is paused after EMFILE/ENFILE.
    var acceptPausedUntil: Int64?
    /// Refused connections, logged as a summary so that no peer can flood the log.
    var refusals = RefusalLog()
    var loopThread = pthread_self()

    /// Serves `doors` (each socket with its handler) within `limits`, counting into
    /// `stats`; `notifier` hears of the stop and gets the watchdog's pings.
    public init(
        doors: [Door], limits: ServerLimits, stats: ServerStats, notifier: SystemdNotifier, logger: Logger
    ) throws(SystemError) {
        self.doors = doors
        self.limits = limits
        self.stats = stats
        self.notifier = notifier
        self.logger = logger
        epoll = try Epoll()
        wakeup = try Wakeup()
        signals = try ShutdownSignals()
    }

    /// Serves until a shutdown signal, then drains. Returns the signal's number.
    @discardableResult
    public func run() throws(SystemError) -> Int32 {
        loopThread = pthread_self()
        for (index, door) in doors.enumerated() {
            try epoll.add(door.listener.fd, events: .epollIn, token: UInt64(index))
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
                case ..<UInt64(doors.count):
                    acceptAll(from: Int(token))
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

    func beginShutdown(signal: Int32) {
        stopping = true
        logger.notice("shutting down on signal \(signal); finishing calls in flight")
        notifier.stopping(status: "Finishing calls in flight")
        for door in doors {
            epoll.remove(door.listener.fd)
            door.listener.close()
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
