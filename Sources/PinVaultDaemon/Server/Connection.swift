import Glibc
import PinVaultCrypto
import PinVaultProtocol

/// One client connection: its peer, its input, at most one call in flight (Varlink
/// answers calls in order, so the next frame waits for the reply to the last), and
/// the reply being written.
final class Connection {
    let id: UInt64
    let fd: Int32
    let peer: Peer
    let input: InputBuffer
    /// The call being worked on, if any.
    var inFlight: CallContext?
    /// Reply bytes not yet written, and how far writing got.
    private var output: ReplyBuffer?
    /// Monotonic milliseconds of the last answered call (or of the connect):
    /// a peer that dribbles bytes without completing a call does not reset it.
    var lastProgress: Int64
    /// The epoll interest currently registered; nil while the fd is not in the set.
    var registeredEvents: UInt32?
    /// The peer shut down its writing side: no more input comes, but it may still be
    /// reading the replies to what it sent (`socat`, `nc -N`).
    var inputClosed = false
    /// The peer closed the connection entirely: no reply can reach it, so of what
    /// it left in the input only the oneway calls still run.
    var peerGone = false

    init(id: UInt64, fd: Int32, peer: Peer, maxMessageBytes: Int, now: Int64) throws(CryptoError) {
        self.id = id
        self.fd = fd
        self.peer = peer
        self.input = try InputBuffer(limit: maxMessageBytes)
        self.lastProgress = now
    }

    var hasPendingOutput: Bool { (output?.count ?? 0) > 0 }

    /// Queues one reply frame, NUL terminator included.
    func enqueue(frame: ReplyBuffer) {
        output = frame
    }

    enum FlushResult { case done, wouldBlock, failed }

    /// Writes as much pending output as the socket takes. A written reply is
    /// released, and `ReplyBuffer` zeroes it: a BeginUnregister reply carries a token.
    func flush() -> FlushResult {
        guard let pending = output else { return .done }
        while pending.count > 0 {
            let n = pending.withUnsafeBytes { bytes in
                send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            }
            if n > 0 {
                pending.consume(n)
            } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                return .wouldBlock
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                output = nil
                return .failed
            }
        }
        output = nil
        return .done
    }

    /// Closes the socket, cancels the call in flight and zeroes pending output.
    func close() {
        inFlight?.cancel()
        inFlight = nil
        output = nil
        Glibc.close(fd)
    }
}
