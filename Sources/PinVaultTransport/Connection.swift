import Glibc
import PinVaultCrypto
import PinVaultSystem

/// One client connection: its peer, its input, at most one message in flight (both
/// protocols answer in order, so the next frame waits for the reply to the last), and
/// the reply being written.
///
/// Exclusivity: the stored variables are exempt from Swift's dynamic exclusivity check
/// (~75 instructions per access, several per call). Only the event loop touches them,
/// and every access is a load or a store of a reference, an integer or a flag, never
/// passed `inout` nor held across a call that could reach this connection; any new
/// access must keep to that.
final class Connection {
    /// A reply buffer grown beyond this many bytes is given up (and zeroed) once sent,
    /// so that one large `List` does not pin its memory for the connection's life.
    static let keptReplyCapacity = 4096

    let id: ConnectionID
    let fd: Int32
    let peer: Peer
    /// Which of the server's sockets it came through, and so which handler serves it.
    let door: Int
    let input: InputBuffer
    /// Where every reply of this connection is written, message after message. A message writes
    /// it once (`ReplyRoute.send`), the loop sends it, and each byte sent is zeroed
    /// (`ReplyBuffer.consume`); a reply not sent is `zero()`ed. So each message finds it
    /// empty and zeroed, with no allocation. One message is in flight at a time.
    @exclusivity(unchecked) private(set) var reply = ReplyBuffer()
    /// How a reply gets back to the event loop: made once per connection.
    let deliver: @Sendable (ReplyBuffer) -> Void
    /// The message being worked on, if any.
    @exclusivity(unchecked) var inFlight: ReplyRoute?
    /// Reply bytes not yet written, and how far writing got.
    @exclusivity(unchecked) private var output: ReplyBuffer?
    /// Monotonic milliseconds of the last answered message (or of the connect):
    /// a peer that dribbles bytes without completing a message does not reset it.
    @exclusivity(unchecked) var lastProgress: Int64
    /// The epoll interest currently registered; nil while the fd is not in the set.
    @exclusivity(unchecked) var registeredEvents: UInt32?
    /// The peer shut down its writing side: no more input comes, but it may still be
    /// reading the replies to what it sent (`socat`, `nc -N`).
    @exclusivity(unchecked) var inputClosed = false
    /// The peer closed the connection entirely: no reply can reach it, so of what
    /// it left in the input only the oneway calls still run.
    @exclusivity(unchecked) var peerGone = false

    init(
        id: ConnectionID, fd: Int32, peer: Peer, door: Int, framing: any Framing, now: Int64,
        deliver: @escaping @Sendable (ReplyBuffer) -> Void
    ) throws(CryptoError) {
        self.id = id
        self.fd = fd
        self.peer = peer
        self.door = door
        self.deliver = deliver
        self.input = try InputBuffer(framing: framing)
        self.lastProgress = now
    }

    var hasPendingOutput: Bool { (output?.count ?? 0) > 0 }

    /// Queues one reply frame, NUL terminator included.
    func enqueue(frame: ReplyBuffer) {
        output = frame
    }

    /// Zeroes a finished message's reply that is not to be sent.
    func discard(reply frame: ReplyBuffer) {
        frame.zero()
    }

    enum FlushResult { case done, wouldBlock, failed }

    /// Writes as much pending output as the socket takes. Each byte written is zeroed
    /// (`consume`): a BeginUnregister reply carries a token.
    func flush() -> FlushResult {
        guard let pending = output else { return .done }
        while pending.count > 0 {
            let sent: Int?
            do {
                sent = try pending.withUnsafeBytes { (bytes) throws(SystemError) in
                    try Syscall.nonBlocking("send") { send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }
                }
            } catch {
                sent = 0
            }
            guard let sent else { return .wouldBlock }
            guard sent > 0 else {
                output = nil
                pending.zero()
                return .failed
            }
            pending.consume(sent)
        }
        output = nil
        if pending === reply && reply.capacity > Self.keptReplyCapacity {
            reply = ReplyBuffer()
        }
        return .done
    }

    /// Closes the socket, cancels the message in flight and zeroes pending output.
    func close() {
        if let route = inFlight {
            // The work may still be writing its reply: the buffer is zeroed when the
            // route lets go of it (`ReplyBuffer.deinit`), not under its feet.
            route.cancel()
        } else {
            output?.zero()
        }
        inFlight = nil
        output = nil
        Glibc.close(fd)
    }
}
