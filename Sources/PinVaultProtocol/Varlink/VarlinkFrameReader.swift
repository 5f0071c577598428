import Glibc

/// Splits a byte stream into Varlink messages: each is a JSON text ended by one NUL.
///
/// A pure state machine over a buffer the caller owns. The daemon reads from the
/// socket into `buffer[filled...]`, then calls `next(in:)` until it answers
/// `.needMore`; each `.frame` names the message's bytes (NUL excluded), which the daemon
/// parses, answers, and zeroes in place (`zeroConsumed`). Before the next read it calls
/// `compact` to move the unfinished tail to the front, so a buffer of
/// `maxMessageBytes` always suffices.
///
/// Each byte is scanned once, however the stream is split, so a peer trickling a
/// message one byte per read costs linear time.
public struct VarlinkFrameReader: Sendable {
    /// What the stream holds next.
    public enum Event: Equatable, Sendable {
        /// No complete message yet: read more.
        case needMore
        /// A complete message at this range of the buffer, NUL excluded (may be empty).
        case frame(Range<Int>)
        /// `maxMessageBytes` arrived without a NUL: close the connection.
        case tooLarge
    }

    /// Longest message accepted, NUL terminator included.
    public let maxMessageBytes: Int
    /// Offset of the first byte of the message not yet returned.
    public private(set) var frameStart = 0
    /// Offset up to which the current message has been searched for a NUL.
    private var scanned = 0
    /// Once `.tooLarge`, always `.tooLarge`.
    private var overflowed = false

    /// A reader for messages of at most `maxMessageBytes` bytes (NUL included).
    public init(maxMessageBytes: Int = ProtocolLimits.defaultMaxMessageBytes) {
        self.maxMessageBytes = max(maxMessageBytes, 1)
    }

    /// The next event for `received`, the bytes read so far (from offset 0 of the
    /// caller's buffer up to what is filled).
    public mutating func next(in received: UnsafeRawBufferPointer) -> Event {
        guard !overflowed else { return .tooLarge }
        let limit = min(received.count, frameStart + maxMessageBytes)
        var index = max(scanned, frameStart)
        while index < limit {
            if received[index] == 0 {
                let frame = frameStart..<index
                frameStart = index + 1
                scanned = frameStart
                return .frame(frame)
            }
            index += 1
        }
        scanned = index
        if scanned - frameStart >= maxMessageBytes {
            overflowed = true
            return .tooLarge
        }
        return .needMore
    }

    /// Zeroes every byte already returned as frames (NUL terminators included).
    public func zeroConsumed(in buffer: UnsafeMutableRawBufferPointer) {
        let end = min(frameStart, buffer.count)
        guard end > 0, let base = buffer.baseAddress else { return }
        explicit_bzero(base, end)
    }

    /// Moves the bytes after the last returned frame, `buffer[frameStart..<filled]`, to
    /// the front, zeroes everything behind them, and returns the new filled count.
    public mutating func compact(_ buffer: UnsafeMutableRawBufferPointer, filled: Int) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        let filled = min(max(filled, 0), buffer.count)
        let start = min(frameStart, filled)
        let remaining = filled - start
        if start > 0 {
            if remaining > 0 {
                base.copyMemory(from: base + start, byteCount: remaining)
            }
            explicit_bzero(base + remaining, filled - remaining)
        }
        scanned = max(scanned - start, 0)
        frameStart = 0
        return remaining
    }
}
