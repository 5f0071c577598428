import Glibc
import PinVaultCrypto

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
    private(set) var output: [UInt8] = []
    private var outputOffset = 0
    /// Monotonic milliseconds of the last answered call (or of the connect):
    /// a peer that dribbles bytes without completing a call does not reset it.
    var lastProgress: Int64
    /// The epoll interest currently registered.
    var registeredEvents: UInt32 = 0

    init(id: UInt64, fd: Int32, peer: Peer, maxMessageBytes: Int, now: Int64) throws(CryptoError) {
        self.id = id
        self.fd = fd
        self.peer = peer
        self.input = try InputBuffer(limit: maxMessageBytes)
        self.lastProgress = now
    }

    var hasPendingOutput: Bool { outputOffset < output.count }

    /// Queues one reply frame, NUL terminator included (appended by the encoder, so
    /// this array is never regrown and never leaves an unzeroed copy behind).
    func enqueue(frame: [UInt8]) {
        output = frame
        outputOffset = 0
    }

    enum FlushResult { case done, wouldBlock, failed }

    /// Writes as much pending output as the socket takes. Written replies are
    /// zeroed: a BeginUnregister reply carries a token.
    func flush() -> FlushResult {
        while outputOffset < output.count {
            let n = output.withUnsafeBytes { bytes in
                send(fd, bytes.baseAddress! + outputOffset, bytes.count - outputOffset, Int32(MSG_NOSIGNAL))
            }
            if n > 0 {
                outputOffset += n
            } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                return .wouldBlock
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                clearOutput()
                return .failed
            }
        }
        clearOutput()
        return .done
    }

    /// Closes the socket, cancels the call in flight and zeroes pending output.
    func close() {
        inFlight?.cancel()
        inFlight = nil
        clearOutput()
        Glibc.close(fd)
    }

    private func clearOutput() {
        output.withUnsafeMutableBytes { bytes in
            if let base = bytes.baseAddress { explicit_bzero(base, bytes.count) }
        }
        output = []
        outputOffset = 0
    }
}
