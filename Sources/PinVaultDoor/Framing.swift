/// How a connection's byte stream splits into messages: a NUL after each Varlink
/// message, a 4-byte length before each ssh-agent one. A framing is a pure state
/// machine over the connection's input buffer, which the transport owns.
///
/// The transport reads into the buffer, calls `next(in:)` until `.needMore`, hands each
/// frame to its `MessageHandler`, then `compact`s: the consumed frames are zeroed and
/// the unfinished tail moves to the front, so a buffer of `maxMessageBytes` suffices.
public protocol Framing {
    /// The most bytes one message may take on the wire, its framing included; the
    /// input buffer never grows past it.
    var maxMessageBytes: Int { get }

    /// The next event for `received`, the bytes read so far (from offset 0 of the
    /// buffer up to what is filled).
    mutating func next(in received: UnsafeRawBufferPointer) -> FrameEvent

    /// Moves the bytes after the last returned frame to the front of `buffer`, zeroes
    /// everything behind them, and returns the new filled count.
    mutating func compact(_ buffer: UnsafeMutableRawBufferPointer, filled: Int) -> Int
}

/// What a framing found in the bytes read so far.
public enum FrameEvent: Equatable, Sendable {
    /// No complete message yet: read more.
    case needMore
    /// A complete message's payload at this range of the buffer (framing excluded).
    case frame(Range<Int>)
    /// The peer broke the framing (too long, malformed): close the connection.
    case violation(String)
}
