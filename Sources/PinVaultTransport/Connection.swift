import Glibc
import PinVaultCrypto
import PinVaultSystem

/// One client connection: who it is, which socket it came through, and its
/// `ConnectionState`, which only the event loop touches.
final class Connection {
    let id: ConnectionID
    let fd: Int32
    let peer: Peer
    /// Which of the server's sockets it came through, and so which handler serves it.
    let door: Int
    /// How a reply gets back to the event loop: made once per connection.
    let deliver: @Sendable (ReplyBuffer) -> Void
    private var state: ConnectionState

    init(
        id: ConnectionID, fd: Int32, peer: Peer, door: Int, framing: any Framing, now: Int64,
        deliver: @escaping @Sendable (ReplyBuffer) -> Void
    ) throws(CryptoError) {
        self.id = id
        self.fd = fd
        self.peer = peer
        self.door = door
        self.deliver = deliver
        self.state = ConnectionState(input: try InputBuffer(framing: framing), lastProgress: now)
    }

    /// Gives `body` the connection's state, alone, for as long as it runs: the event
    /// loop handles one event of a connection inside one such access, so the runtime
    /// checks one access per event and the compiler checks every use inside it.
    func withState<R>(_ body: (inout ConnectionState) -> R) -> R {
        body(&state)
    }
}

/// What the event loop alone reads and writes of a connection, in one value.
struct ConnectionState {
    /// A reply buffer grown beyond this many bytes is given up (and zeroed) once sent,
    /// so that one large `List` does not pin its memory for the connection's life.
    static let keptReplyCapacity = 4096

    var input: InputBuffer
    /// Where every reply of this connection is written, message after message. A
    /// message writes it once (`ReplyRoute.send`), the loop sends it, and each byte sent
    /// is zeroed (`ReplyBuffer.drain`); a reply not sent is `zero()`ed. So each message
    /// finds it empty and zeroed, with no allocation. One message is in flight at a time.
    private(set) var reply = ReplyBuffer()
    /// The message being worked on, if any.
    var inFlight: ReplyRoute?
    /// `reply` holds bytes being written.
    private(set) var hasPendingOutput = false
    /// Monotonic milliseconds of the last answered message (or of the connect):
    /// a peer that dribbles bytes without completing a message does not reset it.
    var lastProgress: Int64
    /// The epoll interest currently registered; nil while the fd is not in the set.
    var registeredEvents: UInt32?
    /// The peer shut down its writing side: no more input comes, but it may still be
    /// reading the replies to what it sent (`socat`, `nc -N`).
    var inputClosed = false
    /// The peer closed the connection entirely: no reply can reach it, so of what
    /// it left in the input only the messages that want no reply still run.
    var peerGone = false

    init(input: InputBuffer, lastProgress: Int64) {
        self.input = input
        self.lastProgress = lastProgress
    }

    /// Queues the reply the route wrote (`reply`, NUL or framing included).
    mutating func enqueueReply() {
        hasPendingOutput = reply.count > 0
    }

    enum FlushResult { case done, wouldBlock, failed }

    /// Writes as much pending output as the socket takes; each byte written is zeroed
    /// (a BeginUnregister reply carries a token).
    mutating func flush(to fd: Int32) -> FlushResult {
        guard hasPendingOutput else { return .done }
        let left: Int
        do {
            left = try reply.drain { (bytes) throws(SystemError) -> Int? in
                try Syscall.nonBlocking("send") { send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }
            }
        } catch {
            hasPendingOutput = false
            reply.zero()
            return .failed
        }
        guard left == 0 else { return .wouldBlock }
        hasPendingOutput = false
        if reply.capacity > Self.keptReplyCapacity {
            reply = ReplyBuffer()
        }
        return .done
    }

    /// Cancels the message in flight and zeroes pending output, as the connection closes.
    mutating func close() {
        if let route = inFlight {
            // The work may still be writing its reply: the buffer is zeroed when the
            // route lets go of it (`ReplyBuffer` zeroes in its deinit), not under its feet.
            route.cancel()
        } else {
            reply.zero()
        }
        inFlight = nil
        hasPendingOutput = false
    }
}
