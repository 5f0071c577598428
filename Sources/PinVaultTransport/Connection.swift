import Glibc
import PinVaultCrypto
import PinVaultDoor
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
    /// Replies of one wakeup gathered before they are written: past this many bytes the
    /// loop writes what it has before it answers the next message.
    static let batchBytes = 64 * 1024

    var input: InputBuffer
    /// Where the message in flight writes its reply (`ReplyRoute.send`): empty and zeroed
    /// whenever a message is handed over, so each finds it so, with no allocation.
    private(set) var reply = ReplyBuffer()
    /// Replies answered and not yet written, in order: the replies of every message one
    /// wakeup answered, written together (`flush`), each byte zeroed as it is sent
    /// (`ReplyBuffer.drain`; a BeginUnregister reply carries a token).
    private(set) var output = ReplyBuffer()
    /// The message being worked on, if any. One message is in flight at a time.
    var inFlight: ReplyRoute?
    /// The socket took only part of `output`: nothing more is answered until it has
    /// taken the rest (EPOLLOUT).
    private(set) var outputBlocked = false
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
    /// The door asked to close the connection (a message that is not a call) while
    /// replies to the messages before it still wait to be written: it closes, for
    /// this reason, once they are (nothing more is read or answered meanwhile).
    var closeOnceWritten: CloseRequest?

    /// Why a connection closes once its replies are written.
    struct CloseRequest { let reason: String? }

    init(input: InputBuffer, lastProgress: Int64) {
        self.input = input
        self.lastProgress = lastProgress
    }

    /// Replies wait to be written.
    var hasPendingOutput: Bool { output.count > 0 }

    /// Moves the reply the route wrote (`reply`, NUL or framing included) behind the
    /// replies waiting in `output`: the buffer itself when none waits (no copy), else
    /// its bytes, copied, then zeroed in `reply`. Either way `reply` is empty and zeroed
    /// for the next message. The finished route keeps a reference to its buffer but
    /// never writes it again (`ReplyRoute.send` counts once).
    mutating func enqueueReply() {
        guard reply.count > 0 else { return }
        if output.count == 0 {
            swap(&reply, &output)
        } else {
            reply.withUnsafeBytes { output.append($0) }
            reply.zero()
            if reply.capacity > Self.keptReplyCapacity {
                reply = ReplyBuffer()
            }
        }
    }

    /// Copies what a pushing door sent behind the replies waiting in `output`, and zeroes it.
    mutating func enqueuePush(_ bytes: ReplyBuffer) {
        bytes.withUnsafeBytes { output.append($0) }
        bytes.zero()
    }

    enum FlushResult { case done, wouldBlock, failed }

    /// Writes as much of `output` as the socket takes; each byte written is zeroed.
    mutating func flush(to fd: Int32) -> FlushResult {
        guard hasPendingOutput else {
            outputBlocked = false
            return .done
        }
        let left: Int
        do {
            left = try output.drain { (bytes) throws(SystemError) -> Int? in
                try Syscall.nonBlocking("send") { send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }
            }
        } catch {
            output.zero()
            outputBlocked = false
            return .failed
        }
        guard left == 0 else {
            outputBlocked = true
            return .wouldBlock
        }
        outputBlocked = false
        if output.capacity > Self.keptReplyCapacity {
            output = ReplyBuffer()
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
        output.zero()
        outputBlocked = false
    }
}
