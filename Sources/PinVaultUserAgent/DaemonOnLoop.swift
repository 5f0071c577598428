import Glibc
import Logging
import PinVaultClient
import PinVaultCrypto
import PinVaultSystem
import PinVaultTransport

/// A connection to pinvaultd on the agent's own event loop: a non-blocking socket,
/// watched by the same epoll as ssh's connections. Each call is written from the loop in
/// the turn that asks for it; calls follow each other on the connection without waiting
/// (Varlink answers them in order), and each reply is read and handed to its caller on
/// the loop — no thread between ssh's request and pinvaultd's answer.
///
/// Every call is answered exactly once: by its reply, or by the error that ended it —
/// `.daemonUnavailable` when no connection could be made (at once, from `call`),
/// `.connectionLost` when the connection broke or a call could not be written whole,
/// `.timedOut` when pinvaultd left a call unanswered for `timeoutSeconds`. Those last two
/// close the connection and end every call on it the same way (which reply would belong
/// to which call is no longer known); the next call connects anew.
///
/// Used on the loop's thread only (the backend's steps, the watchers' `ready`).
final class DaemonOnLoop: @unchecked Sendable {
    /// A call's outcome: its reply frame (without the NUL, valid during the call), or why
    /// there is none.
    typealias Outcome = (Result<UnsafeRawBufferPointer, PinVaultError>) -> Void

    private struct Waiting {
        /// When it has waited too long (`MonotonicClock.nanoseconds()`).
        let deadline: UInt64
        let outcome: Outcome
    }

    private let socketPath: String
    private let descriptors: LoopDescriptors
    private let logger: Logger
    /// What the log calls this connection ("pinvaultd", "pinvaultd (PIN checks)").
    private let name: String
    private let timeoutSeconds: Int
    private var fd: Int32 = -1
    private var token: UInt64 = 0
    /// The calls written and not answered yet, oldest first (from `waitingStart`).
    private var waiting: [Waiting] = []
    private var waitingStart = 0
    /// Bytes read and not yet a whole reply (a reply ends with NUL), from offset 0 to
    /// `filled`; it grows for a long reply (a List of many keys), up to `maxReplyBytes`.
    private var input = [UInt8](repeating: 0, count: 16 * 1024)
    private var filled = 0
    /// Counts the connections closed: a reply handler that ends this one stops the read.
    private var closings = 0
    /// Fires at the oldest call's deadline; `timerSet` while it will.
    private let timer: TimerDescriptor
    private var timerSet = false
    /// Whether the last failure to connect was logged (once until a connection is made).
    private var unreachableLogged = false
    /// Runs each time a connection closes (pinvaultd may come back on another vault).
    var closed: () -> Void = {}

    /// The most a reply may take, as `PinVaultClient` allows.
    static let maxReplyBytes = 16 << 20

    init(socketPath: String, descriptors: LoopDescriptors, timeoutSeconds: Int, name: String, logger: Logger) throws(SystemError) {
        self.socketPath = socketPath
        self.descriptors = descriptors
        self.timeoutSeconds = timeoutSeconds
        self.name = name
        self.logger = logger
        timer = try TimerDescriptor()
        _ = try descriptors.watch(timer.fd) { [self] in timerFired() }
    }

    /// Writes `frame` (zeroing it) and hands its reply, or why there is none, to
    /// `outcome` on the loop — at once when nothing could be written.
    func call(_ frame: ReplyBuffer, _ outcome: @escaping Outcome) {
        defer { frame.zero() }
        if let unreachable = connect() { return outcome(.failure(unreachable)) }
        let sent = frame.withUnsafeBytes { bytes in
            Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
        }
        guard sent == frame.count else {
            // Part of a call, or none because pinvaultd has stopped reading (its socket
            // buffer full), leaves the stream in no state a reply could be matched to.
            let why = sent < 0 && errno != EAGAIN ? "the connection broke" : "pinvaultd is not reading its calls"
            logger.warning("\(name): \(why); the connection is made anew for the next request")
            close(failing: .connectionLost)
            return outcome(.failure(.connectionLost))
        }
        let deadline = MonotonicClock.nanoseconds() + UInt64(timeoutSeconds) * 1_000_000_000
        waiting.append(Waiting(deadline: deadline, outcome: outcome))
        // Set for the oldest call's deadline, which comes before any later call's: when
        // it fires, it is set again for the call then oldest.
        if !timerSet {
            timer.fire(atMonotonicNanoseconds: deadline)
            timerSet = true
        }
    }

    /// A typed call: `decode` reads the reply on the loop.
    func call<T>(
        _ frame: ReplyBuffer, decode: @escaping (UnsafeRawBufferPointer) -> Result<T, PinVaultError>,
        _ completion: @escaping (Result<T, PinVaultError>) -> Void
    ) {
        call(frame) { reply in completion(reply.flatMap(decode)) }
    }

    /// Connects when not connected; nil when connected, else why not.
    private func connect() -> PinVaultError? {
        if fd >= 0 { return nil }
        let socket: Int32
        do {
            socket = try UnixSocket.connect(path: socketPath, nonBlocking: true)
        } catch {
            if !unreachableLogged {
                logger.warning("\(name): cannot reach \(socketPath): \(error)")
                unreachableLogged = true
            }
            return .daemonUnavailable(socketPath: socketPath, errno: error.errno)
        }
        do {
            token = try descriptors.watch(socket, ready: { [self] in readReplies() })
        } catch {
            Glibc.close(socket)
            return .daemonUnavailable(socketPath: socketPath, errno: error.errno)
        }
        fd = socket
        unreachableLogged = false
        return nil
    }

    /// The loop saw the socket readable (or closed): every whole reply is answered.
    private func readReplies() {
        let connection = closings
        while fd >= 0 {
            if filled == input.count {
                guard input.count < Self.maxReplyBytes else {
                    logger.error("\(name): a reply longer than \(Self.maxReplyBytes) bytes; the connection is made anew")
                    return close(failing: .protocolError("a reply is larger than \(Self.maxReplyBytes) bytes"))
                }
                input.append(contentsOf: repeatElement(0, count: input.count))
            }
            let got = input.withUnsafeMutableBytes { buffer in
                recv(fd, buffer.baseAddress! + filled, buffer.count - filled, Int32(MSG_DONTWAIT))
            }
            if got < 0 && errno == EINTR { continue }
            if got < 0 && errno == EAGAIN { return }
            // pinvaultd went away (it stopped, or restarted): the calls in flight are lost.
            guard got > 0 else { return close(failing: .connectionLost) }
            var start = 0
            var searched = filled
            filled += got
            while let end = input[searched..<filled].firstIndex(of: 0) {
                guard waitingStart < waiting.count else {
                    logger.error("\(name): a reply to no call; the connection is made anew")
                    return close(failing: .protocolError("a reply to no call"))
                }
                let call = waiting[waitingStart]
                waitingStart += 1
                input.withUnsafeBytes { call.outcome(.success(UnsafeRawBufferPointer(rebasing: $0[start..<end]))) }
                // The outcome may have closed this connection (and a new one may run).
                guard closings == connection else { return }
                start = end + 1
                searched = start
            }
            if start > 0 {
                input.withUnsafeMutableBytes { buffer in
                    let base = buffer.baseAddress!
                    (base).copyMemory(from: base + start, byteCount: filled - start)
                }
                filled -= start
            }
            if waitingStart == waiting.count {
                waiting.removeAll(keepingCapacity: true)
                waitingStart = 0
            }
        }
    }

    /// The oldest call's deadline may have come: past it, pinvaultd is not answering.
    private func timerFired() {
        timer.acknowledge()
        timerSet = false
        guard waitingStart < waiting.count else { return }
        let oldest = waiting[waitingStart].deadline
        guard MonotonicClock.nanoseconds() >= oldest else {
            timer.fire(atMonotonicNanoseconds: oldest)
            timerSet = true
            return
        }
        logger.error("""
            \(name) did not answer a call within \(timeoutSeconds) s (daemon_timeout_seconds in agent.toml): \
            the request fails, and the connection is made anew for the next
            """)
        close(failing: .timedOut)
    }

    /// Closes the connection; every call in flight is answered `error`.
    private func close(failing error: PinVaultError) {
        guard fd >= 0 else { return }
        descriptors.stopWatching(fd, token: token)
        Glibc.close(fd)
        fd = -1
        closings += 1
        filled = 0
        let lost = waiting[waitingStart...]
        waiting = []
        waitingStart = 0
        closed()
        for call in lost { call.outcome(.failure(error)) }
    }
}
