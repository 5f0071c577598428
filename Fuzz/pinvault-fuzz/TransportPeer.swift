import Glibc
import PinVaultCrypto
import PinVaultDoor
import PinVaultProtocol
import PinVaultTransport

/// The client end of one socketpair whose other end the event loop serves: what it
/// sent (and so what it is owed, `ReplyExpectation`), what it has yet to send, and
/// the replies it read, each checked as it completes.
final class TransportPeer {
    let fd: Int32
    let connection: ConnectionID
    let peer: Peer
    /// Every byte the socket took, in order.
    private(set) var sent: [UInt8] = []
    /// Bytes a write op asked for that the socket has not taken yet.
    private var queued: [UInt8] = []
    /// What each complete frame sent is owed, oldest first; `owed` indexes the next.
    private(set) var expectations: [ReplyExpectation] = []
    private var frames: VarlinkFrameReader
    private var owed = 0
    /// Received bytes not yet ended by a NUL; zeroes what it gives up (a reply may
    /// hold an unregistration token).
    private let pending = ReplyBuffer()
    private(set) var repliesRead = 0
    /// This end shut its writing side down (`SHUT_WR`).
    private(set) var shutWrite = false
    /// The loop closed its end: reading gave end-of-file.
    private(set) var sawEndOfFile = false

    init(fd: Int32, connection: ConnectionID, peer: Peer, maxMessageBytes: Int) {
        self.fd = fd
        self.connection = connection
        self.peer = peer
        frames = VarlinkFrameReader(maxMessageBytes: maxMessageBytes)
    }

    deinit {
        pending.zero()
        Glibc.close(fd)
    }

    /// Queues `bytes` and sends what the socket takes now.
    func write(_ bytes: UnsafeRawBufferPointer) {
        guard !shutWrite else { return }
        queued += bytes
        flush()
    }

    /// Sends queued bytes while the socket takes them.
    func flush() {
        while !queued.isEmpty && !shutWrite {
            let n = queued.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if n <= 0 { return }  // full (EAGAIN), or the loop closed its end (EPIPE)
            sent += queued[..<n]
            queued.removeFirst(n)
            noteFrames()
        }
    }

    /// Shuts the writing side down; bytes still queued are never sent.
    func shutdownWriting() {
        guard !shutWrite else { return }
        shutWrite = true
        queued = []
        shutdown(fd, Int32(SHUT_WR))
    }

    /// The frames completed by what was sent, with what each is owed. Once a frame
    /// closes the connection, nothing after it is read by the loop.
    private func noteFrames() {
        if case .close = expectations.last { return }
        sent.withUnsafeBytes { stream in
            while true {
                switch frames.next(in: stream) {
                case .frame(let range):
                    let expectation = ReplyExpectation.of(frame: UnsafeRawBufferPointer(rebasing: stream[range]))
                    expectations.append(expectation)
                    if case .close = expectation { return }
                case .tooLarge:
                    expectations.append(ReplyExpectation.tooLarge)
                    return
                case .needMore:
                    return
                }
            }
        }
    }

    /// The reason the connection must be closed for, once a frame sent calls for it.
    var closeReason: String? {
        if case .close(let reason) = expectations.last { return reason }
        return nil
    }

    /// Replies still owed: calls sent, not oneway, not answered yet.
    var repliesOwed: Int {
        expectations[owed...].filter { if case .reply = $0 { true } else { false } }.count
    }

    /// Reads what the socket holds now, checking each reply it completes against the
    /// call it answers.
    func read() {
        guard !sawEndOfFile else { return }
        var chunk = [UInt8](repeating: 0, count: 16384)
        defer { for index in chunk.indices { chunk[index] = 0 } }
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n == 0 {
                sawEndOfFile = true
                guard pending.count == 0 else {
                    FuzzHarness.trap("connection \(connection): a reply cut off by the close (\(pending.count) bytes)")
                }
                return
            }
            if n < 0 {
                if errno == EAGAIN || errno == EINTR { return }
                // ECONNRESET: the loop closed with input unread, which ends the stream too.
                sawEndOfFile = true
                return
            }
            chunk.withUnsafeBytes { pending.append(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
            takeReplies()
        }
    }

    private func takeReplies() {
        while true {
            let length: Int? = pending.withUnsafeBytes { $0.firstIndex(of: 0) }
            guard let length else { return }
            pending.withUnsafeBytes { bytes in
                check(reply: UnsafeRawBufferPointer(rebasing: bytes[..<length]))
            }
            pending.consume(length + 1)
            repliesRead += 1
        }
    }

    private func check(reply: UnsafeRawBufferPointer) {
        let message = ReplyCheck.verify(reply)
        while owed < expectations.count, expectations[owed] == .none { owed += 1 }
        guard owed < expectations.count, case .reply(let method, let interface) = expectations[owed] else {
            FuzzHarness.trap("connection \(connection): a reply no call asked for: \(String(decoding: reply, as: UTF8.self))")
        }
        ReplyExpectation.check(message, answers: method, interface: interface) { String(decoding: reply, as: UTF8.self) }
        owed += 1
        if FuzzHarness.tracing {
            print("connection \(connection) uid \(peer.uid): \(method): \(String(decoding: reply.prefix(160), as: UTF8.self))")
        }
    }
}
