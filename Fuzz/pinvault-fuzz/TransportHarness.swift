import Glibc
import Logging
import PinVaultDoor
import PinVaultEmbedded
import PinVaultProtocol
import PinVaultSystem
import PinVaultTransport
import Synchronization

/// The second target (`PINVAULT_FUZZ_TARGET=transport`): the real event loop
/// (`SteppedEventLoop`, the daemon's `EventLoop` turned by this thread) serving the
/// daemon's Varlink door (`InProcessVault`: the composition root, real store, weak
/// KDF) over socketpairs, with the peers' writes split, interleaved, half-closed and
/// closed as the input says (`TransportScript`).
///
/// Checked on every input: each reply is one whole frame, well-formed, and answers
/// its call (in order: `ReplyExpectation`); no reply comes that no call asked for; a
/// message handed over is answered or dropped within seconds (`settle`); and after
/// the input, every peer that is still there shuts its writing side and must see each
/// of its calls answered and then its connection closed — or closed for the reason the
/// frames it sent call for, logged by the loop — and the loop ends with no
/// connection open. A wedge (a deadline passed) is a trap, like any other finding.
enum TransportHarness {
    /// Connections at once: slots an input can open, write to and close.
    static let slots = 4
    /// `server.max_message_bytes` for the loop's door: small enough that an input of at
    /// most 16 KiB sends a frame past it and grows a connection's input buffer (it
    /// starts at 4 KiB) to it; the daemon's default is 64 KiB, the code the same.
    static let maxMessageBytes = 6000
    /// How long a message in flight, or the drain at the end, may take.
    static let deadlineMilliseconds: Int64 = 5000

    nonisolated(unsafe) static var loop: SteppedEventLoop?
    nonisolated(unsafe) static var nextPid: Int32 = 100_000
    /// Where the loop's listener is bound (nobody connects to it).
    nonisolated(unsafe) static var listenerDirectory: String?

    /// The loop (made once), serving the vault's door.
    static func loopOrTrap() -> SteppedEventLoop {
        if let loop { return loop }
        let vault = FuzzHarness.vaultOrTrap(maxMessageBytes: maxMessageBytes)
        var template = Array("/tmp/pinvault-fuzz-socket-XXXXXX".utf8CString)
        guard let directory = mkdtemp(&template) else { FuzzHarness.trap("mkdtemp failed") }
        listenerDirectory = String(cString: directory)
        atexit { TransportHarness.removeListener() }
        do {
            let listener = try UnixListener.bind(path: String(cString: directory) + "/fuzz.sock", mode: 0o600)
            let made = try SteppedEventLoop(
                door: Server.Door(listener: listener, handler: vault.varlinkDoor),
                limits: ServerLimits(
                    maxConnections: slots * 2, maxConnectionsPerUid: slots * 2, idleTimeoutSeconds: 60,
                    allowedGroups: [], adminGroup: nil
                ),
                stats: vault.serverStats,
                logger: CloseReasons.logger
            )
            loop = made
            return made
        } catch {
            FuzzHarness.trap("cannot make the event loop: \(error)")
        }
    }

    static func removeListener() {
        loop = nil
        if let listenerDirectory { rmdir(listenerDirectory) }
        listenerDirectory = nil
    }

    /// Runs one input.
    static func run(_ input: UnsafeRawBufferPointer) {
        let loop = loopOrTrap()
        let vault = FuzzHarness.vaultOrTrap(maxMessageBytes: maxMessageBytes)
        var peers = [TransportPeer?](repeating: nil, count: slots)
        CloseReasons.clear()

        for operation in TransportScript(input) {
            switch operation {
            case .open(let slot, let peerIndex, let smallBuffers):
                guard peers[slot] == nil else { continue }
                peers[slot] = open(loop, as: FuzzHarness.peers[peerIndex], smallBuffers: smallBuffers)
            case .write(let slot, let bytes):
                peers[slot]?.write(bytes)
            case .turn(let count):
                for _ in 0..<count { turn(loop, peers, timeout: 0) }
            case .settle:
                settle(loop, peers)
            case .shutdownWriting(let slot):
                peers[slot]?.shutdownWriting()
            case .close(let slot):
                // Its calls may still be in flight; the loop must cancel or finish them.
                peers[slot] = nil
            case .read(let slot):
                peers[slot]?.read()
            case .advanceClock(let seconds):
                vault.advanceClock(seconds: seconds)
            }
        }
        drain(loop, peers.compactMap { $0 })
        peers = []
        let deadline = MonotonicClock.milliseconds() + deadlineMilliseconds
        while loop.openConnections > 0 {
            guard MonotonicClock.milliseconds() < deadline else {
                FuzzHarness.trap("wedged: \(loop.openConnections) connection(s) left open after every peer left")
            }
            turn(loop, [], timeout: 5)
        }
    }

    /// A socketpair whose one end the loop adopts as `peer`'s connection (each with
    /// its own pid, so that the loop's log names it).
    private static func open(_ loop: SteppedEventLoop, as template: Peer, smallBuffers: Bool) -> TransportPeer? {
        var ends: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            FuzzHarness.trap("socketpair failed: errno \(errno)")
        }
        if smallBuffers {
            // The kernel's least (a few KiB): a reply larger than that is written in
            // parts, waiting for EPOLLOUT between them.
            var one: Int32 = 1
            for end in ends {
                setsockopt(end, SOL_SOCKET, SO_SNDBUF, &one, socklen_t(MemoryLayout<Int32>.size))
                setsockopt(end, SOL_SOCKET, SO_RCVBUF, &one, socklen_t(MemoryLayout<Int32>.size))
            }
        }
        nextPid += 1
        let peer = Peer(pid: nextPid, uid: template.uid, gid: template.gid, groups: template.groups, isAdmin: template.isAdmin)
        guard let connection = loop.adopt(fd: ends[1], peer: peer) else {
            close(ends[0])
            return nil
        }
        return TransportPeer(fd: ends[0], connection: connection, peer: peer, maxMessageBytes: maxMessageBytes)
    }

    /// One turn of the loop, then each peer sends what its socket now takes.
    private static func turn(_ loop: SteppedEventLoop, _ peers: [TransportPeer?], timeout: Int32) {
        do {
            try loop.turn(timeoutMilliseconds: timeout)
        } catch {
            FuzzHarness.trap("the loop failed: \(error)")
        }
        for peer in peers { peer?.flush() }
    }

    /// Turns until no message is in flight: every message handed over is answered (or
    /// dropped) within the deadline.
    private static func settle(_ loop: SteppedEventLoop, _ peers: [TransportPeer?]) {
        let deadline = MonotonicClock.milliseconds() + deadlineMilliseconds
        turn(loop, peers, timeout: 0)
        while loop.hasMessageInFlight {
            guard MonotonicClock.milliseconds() < deadline else {
                FuzzHarness.trap("wedged: a message stayed in flight for \(deadlineMilliseconds) ms")
            }
            turn(loop, peers, timeout: 5)
        }
    }

    /// Every peer still there stops writing; each must then read all it is owed and
    /// see its connection closed, for the reason its frames call for, or none.
    private static func drain(_ loop: SteppedEventLoop, _ peers: [TransportPeer]) {
        let deadline = MonotonicClock.milliseconds() + deadlineMilliseconds
        // What the sockets take of the queued bytes is sent; the rest never is.
        turn(loop, peers, timeout: 0)
        for peer in peers { peer.shutdownWriting() }
        while true {
            for peer in peers { peer.read() }
            if peers.allSatisfy(\.sawEndOfFile) { break }
            guard MonotonicClock.milliseconds() < deadline else {
                let open = peers.filter { !$0.sawEndOfFile }.map {
                    "connection \($0.connection): \($0.repliesRead) replies read, \($0.repliesOwed) owed, "
                        + "open in the loop: \(loop.isOpen($0.connection))"
                }
                FuzzHarness.trap("wedged: after the input, " + open.joined(separator: "; "))
            }
            turn(loop, peers, timeout: 5)
        }
        for peer in peers {
            let logged = CloseReasons.reason(pid: peer.peer.pid)
            if FuzzHarness.tracing {
                print("connection \(peer.connection): \(peer.repliesRead) replies, closed for \(logged ?? "no reason")")
            }
            if let expected = peer.closeReason {
                guard logged == expected else {
                    FuzzHarness.trap("connection \(peer.connection) closed for \(logged ?? "no reason"), not \(expected)")
                }
            } else if let logged {
                FuzzHarness.trap("connection \(peer.connection) closed for \(logged), which nothing it sent calls for")
            }
            guard peer.repliesOwed == 0 else {
                FuzzHarness.trap("connection \(peer.connection) closed owing \(peer.repliesOwed) replies (\(peer.repliesRead) read)")
            }
        }
    }
}

/// The reasons the loop logs for the connections it closes, by peer pid.
enum CloseReasons {
    private static let reasons = LockedReasons()

    static var logger: Logger {
        var logger = Logger(label: "pinvault-fuzz-transport") { _ in Handler(reasons: reasons) }
        logger.logLevel = .debug
        return logger
    }

    static func clear() { reasons.clear() }

    static func reason(pid: Int32) -> String? { reasons.reason(pid: pid) }

    private struct Handler: LogHandler {
        let reasons: LockedReasons
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .debug

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            guard event.message.description == "closing connection",
                  case .string(let pidText)? = event.metadata?["pid"], let pid = Int32(pidText),
                  case .string(let reason)? = event.metadata?["reason"]
            else { return }
            reasons.note(pid: pid, reason: reason)
        }
    }
}

/// The reasons, noted by the log handler (which must be Sendable) and read between
/// turns.
final class LockedReasons: Sendable {
    private let byPid = Mutex<[Int32: String]>([:])

    func note(pid: Int32, reason: String) {
        byPid.withLock { $0[pid] = reason }
    }

    func reason(pid: Int32) -> String? {
        byPid.withLock { $0[pid] }
    }

    func clear() {
        byPid.withLock { $0 = [:] }
    }
}
