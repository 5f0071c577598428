import PinVaultCrypto
import PinVaultProtocol

/// The bytes received from the daemon, in secret memory: a BeginUnregister reply holds
/// the unregistration token, so every reply is read into `SecretBytes`, framed in place
/// and zeroed once it is parsed.
///
/// Starts at `initialCapacity` and doubles while one reply does not fit, up to
/// `maxReplyBytes`; a buffer grown for a long reply shrinks back once it is empty.
/// Used only on the connection's queue.
struct ReplyInput {
    /// The buffer a connection starts with: the daemon's default message limit.
    static let initialCapacity = ProtocolLimits.defaultMaxMessageBytes
    /// Largest reply accepted, NUL included. A List of many credentials is long, but
    /// 16 MiB is far past `credentials.max_per_uid`; anything longer is a broken peer.
    static let maxReplyBytes = 16 << 20

    /// Received bytes, from offset 0 to `count`.
    private(set) var buffer: SecretBytes
    /// Frames the stream.
    private var reader = VarlinkFrameReader(maxMessageBytes: ReplyInput.maxReplyBytes)

    /// An empty input.
    init() throws(PinVaultError) {
        buffer = try Self.allocate(Self.initialCapacity)
    }

    /// The next complete reply, nil when more must be received, or `.protocolError`
    /// when a reply exceeds `maxReplyBytes`.
    mutating func nextFrame() throws(PinVaultError) -> Range<Int>? {
        let event = buffer.withUnsafeBytes { reader.next(in: $0) }
        switch event {
        case .frame(let range): return range
        case .needMore: return nil
        case .tooLarge: throw .protocolError("a reply is larger than \(Self.maxReplyBytes) bytes")
        }
    }

    /// Receives what `socket` has (waiting until `deadline`) after the bytes already
    /// here, growing the buffer first when it is full.
    mutating func receive(from socket: UnixSocket, deadline: ContinuousClock.Instant) throws(PinVaultError) {
        if buffer.count == buffer.capacity {
            try grow()
        }
        var failure: UnixSocket.Failure?
        buffer.appendIntoFreeSpace { free in
            do throws(UnixSocket.Failure) {
                return try socket.receive(into: free, deadline: deadline)
            } catch {
                failure = error
                return 0
            }
        }
        switch failure {
        case .none: return
        case .closed?: throw .connectionLost
        case .timedOut?: throw .timedOut
        }
    }

    /// Doubles the buffer (at most to `maxReplyBytes`), moving what was received.
    private mutating func grow() throws(PinVaultError) {
        guard buffer.capacity < Self.maxReplyBytes else {
            throw .protocolError("a reply is larger than \(Self.maxReplyBytes) bytes")
        }
        let larger = try Self.allocate(min(buffer.capacity * 2, Self.maxReplyBytes))
        buffer.withUnsafeBytes { bytes in
            larger.fill { target in
                target.copyMemory(from: bytes)
                return bytes.count
            }
        }
        buffer.wipe()
        buffer = larger
    }

    /// Zeroes the frames returned so far and moves anything after them to the front.
    /// Returns how many bytes are left over (0 when the daemon sent exactly one reply).
    mutating func discardFrames() -> Int {
        let remaining = buffer.withUnsafeMutableBytes { bytes in
            reader.zeroConsumed(in: bytes)
            return reader.compact(bytes, filled: bytes.count)
        }
        buffer.truncate(to: remaining)
        if remaining == 0, buffer.capacity > Self.initialCapacity,
           let fresh = try? Self.allocate(Self.initialCapacity) {
            buffer.wipe()
            buffer = fresh
        }
        return remaining
    }

    /// Zeroes everything received.
    mutating func wipe() {
        buffer.wipe()
        reader = VarlinkFrameReader(maxMessageBytes: Self.maxReplyBytes)
    }

    private static func allocate(_ capacity: Int) throws(PinVaultError) -> SecretBytes {
        do {
            return try SecretBytes(capacity: capacity)
        } catch {
            throw .protocolError("cannot allocate \(capacity) bytes of secret memory for a reply")
        }
    }
}
