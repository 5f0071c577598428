import CPinVaultSystem
import Glibc
import Logging
import PinVaultCrypto
import PinVaultDoor
import PinVaultSystem

/// Serves sockets: accepts connections on each served socket (a `Door`), reads framed
/// messages into secret memory, hands each to that socket's `MessageHandler`, and
/// writes the replies in order. It knows sockets, peers and limits; what a message
/// means is the handler's business.
///
/// One thread runs it (`run`), and it never blocks on anything but `epoll_wait`:
/// handlers hand slow work to pools, whose replies come back through `completions` and
/// an eventfd. SIGTERM/SIGINT arrive via a signalfd; the server then stops accepting
/// and reading, lets the messages in flight finish (bounded by `shutdownGraceSeconds`),
/// and returns. The loop's own state lives in an `EventLoop` value that `run` owns.
public final class Server: Sendable {
    /// One socket and the protocol served on it.
    public struct Door: Sendable {
        public let listener: UnixListener
        public let handler: any MessageHandler

        public init(listener: UnixListener, handler: any MessageHandler) {
            self.listener = listener
            self.handler = handler
        }
    }

    let doors: [Door]
    let limits: ServerLimits
    let logger: Logger
    let notifier: SystemdNotifier
    let stats: ServerStats
    let epoll: Epoll
    let wakeup: Wakeup
    let signals: ShutdownSignals
    let completions = CompletionQueue()
    /// Descriptors of a handler's own that the loop watches (`LoopDescriptors`).
    public let descriptors: LoopDescriptors
    /// What pushing doors (`PushingHandler`) wrote to their connections outside a reply.
    let pushes = CompletionQueue()
    /// The doors that push and keep time, found once (a cast each turn costs more than
    /// the rest of a small request's turn).
    let pushingDoors: [any PushingHandler]
    /// Whether work outside the loop still runs or waits (the engine's pools,
    /// unlocked sessions): the server is idle only when this is false.
    let hasWork: @Sendable () -> Bool
    /// Told before each request whether more work waits behind it (`LoopBacklog`).
    let backlog: LoopBacklog

    /// Why `run` returned.
    public enum Stop: Equatable, Sendable {
        /// SIGTERM or SIGINT, by number; calls in flight were finished.
        case signal(Int32)
        /// `exitOnIdleSeconds` passed with no connection and no work; the sockets were
        /// left to whoever passed them (systemd), with any connection they hold.
        case idle
    }

    /// Serves `doors` (each socket with its handler) within `limits`, counting into
    /// `stats`; `notifier` hears of the stop and gets the watchdog's pings; `hasWork`
    /// keeps an idle exit away while other threads still work; `backlog` hears, before
    /// each request goes to its door, whether more work waits behind it.
    public init(
        doors: [Door], limits: ServerLimits, stats: ServerStats, notifier: SystemdNotifier, logger: Logger,
        hasWork: @escaping @Sendable () -> Bool = { false }, backlog: LoopBacklog = LoopBacklog()
    ) throws(SystemError) {
        self.doors = doors
        self.backlog = backlog
        pushingDoors = doors.compactMap { $0.handler as? any PushingHandler }
        self.limits = limits
        self.stats = stats
        self.hasWork = hasWork
        self.notifier = notifier
        self.logger = logger
        epoll = try Epoll()
        wakeup = try Wakeup()
        descriptors = LoopDescriptors(epoll: epoll, wakeup: wakeup)
        signals = try ShutdownSignals()
    }

    /// Serves until a shutdown signal (then drains) or, when `limits.exitOnIdleSeconds`
    /// is set, until the server has been idle that long.
    @discardableResult
    public func run() throws(SystemError) -> Stop {
        var loop = EventLoop(server: self)
        return try loop.run()
    }
}
