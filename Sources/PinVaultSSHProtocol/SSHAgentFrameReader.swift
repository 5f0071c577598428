import Glibc

/// The ssh-agent protocol's framing as a pure state machine over a connection's
/// input: each message is a 4-byte big-endian length, then that many bytes. A length
/// of 0 (no message type) or past `SSHAgentLimits.maxMessageBytes` breaks the
/// framing, and the connection must close (as OpenSSH's agent closes it).
///
/// Like `VarlinkFrameReader`, it works in the transport's buffer: `next(in:)` returns
/// each message's range, and `compact` zeroes what was consumed and moves the rest
/// to the front.
public struct SSHAgentFrameReader: Sendable {
    public enum Event: Equatable, Sendable {
        /// No whole message yet.
        case needMore
        /// A message (its type byte and body, the length excluded).
        case frame(Range<Int>)
        /// A length of 0, or past the limit.
        case badLength(UInt32)
    }

    public let maxMessageBytes: Int
    /// Where the next frame's length begins.
    public private(set) var frameStart = 0

    public init(maxMessageBytes: Int = SSHAgentLimits.maxMessageBytes) {
        self.maxMessageBytes = max(maxMessageBytes, 1)
    }

    /// The bytes one frame may take on the wire.
    public var maxFrameBytes: Int { 4 + maxMessageBytes }

    /// The next event for `received`, the bytes read so far from offset 0.
    public mutating func next(in received: UnsafeRawBufferPointer) -> Event {
        guard received.count - frameStart >= 4 else { return .needMore }
        let length = UInt32(received[frameStart]) << 24 | UInt32(received[frameStart + 1]) << 16
            | UInt32(received[frameStart + 2]) << 8 | UInt32(received[frameStart + 3])
        guard length > 0, length <= UInt32(maxMessageBytes) else { return .badLength(length) }
        let start = frameStart + 4
        let end = start + Int(length)
        guard received.count >= end else { return .needMore }
        frameStart = end
        return .frame(start..<end)
    }

    /// Moves the bytes after the last frame returned to the front of `buffer`, zeroes
    /// everything behind them, and returns the new filled count.
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
        frameStart = 0
        return remaining
    }
}
