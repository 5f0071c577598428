import Glibc

/// A growable byte buffer for outgoing messages that never leaves a stale copy behind.
///
/// A reply may carry a secret (the unregistration token). A Swift `Array` that grows
/// frees its old storage without clearing it, so this buffer manages its own memory
/// (`ReplyBytes`): every allocation it gives up is zeroed first (`explicit_bzero`,
/// which the compiler may not elide), and `zero()` clears it on demand. The daemon
/// appends replies, writes them to the socket, `consume`s what was sent, and `zero()`es
/// the rest when done.
///
/// Every byte from `count` to `capacity` is zero, always. So a buffer that was
/// `consume`d to empty or `zero()`ed holds no trace of what it held, and can be reused
/// for the next message; `zero()` clears only the bytes written.
///
/// Thread-safety: one owner at a time, like `SecretBytes`. A writer holds the bytes
/// for a whole message (`write`): one access the runtime checks, then appends that the
/// compiler checks.
public final class ReplyBuffer: @unchecked Sendable {
    private var bytes: ReplyBytes

    /// An empty buffer with room for `capacity` bytes before it first grows.
    public init(capacity: Int = 1024) {
        bytes = ReplyBytes(capacity: capacity)
    }

    /// Bytes allocated.
    public var capacity: Int { bytes.allocated }
    /// Bytes written, from the start of the buffer.
    public var count: Int { bytes.written }

    /// Gives `body` the bytes to append to, alone, for as long as it runs.
    public func write<R, E: Error>(_ body: (inout ReplyBytes) throws(E) -> R) throws(E) -> R {
        try body(&bytes)
    }

    /// Appends one byte.
    public func append(_ byte: UInt8) {
        bytes.append(byte)
    }

    /// Appends `source`.
    public func append(_ source: UnsafeRawBufferPointer) {
        bytes.append(source)
    }

    /// Appends the UTF-8 of a non-secret string (names, numbers, literals).
    public func append(utf8 text: String) {
        var text = text
        text.withUTF8 { bytes.append(UnsafeRawBufferPointer($0)) }
    }

    /// Reads the bytes written.
    public func withUnsafeBytes<R, E: Error>(
        _ body: (UnsafeRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: bytes.base, count: bytes.written))
    }

    /// Drops the first `n` bytes (those already sent), moving the rest to the front and
    /// zeroing the bytes vacated at the end.
    public func consume(_ n: Int) {
        bytes.consume(n)
    }

    /// Offers the bytes written to `send` until it takes all of them or none (nil: try
    /// later; 0: it cannot take any); each byte it takes is dropped and zeroed
    /// (`consume`). Returns how many bytes are left. One access, however many sends.
    public func drain<E: Error>(_ send: (UnsafeRawBufferPointer) throws(E) -> Int?) throws(E) -> Int {
        try write { (bytes) throws(E) -> Int in
            while bytes.written > 0 {
                guard let sent = try send(UnsafeRawBufferPointer(start: bytes.base, count: bytes.written)),
                      sent > 0
                else { break }
                bytes.consume(sent)
            }
            return bytes.written
        }
    }

    /// Zeroes everything written and empties the buffer (its capacity is kept). Only
    /// the bytes written need it: the rest of the allocation is zero already.
    public func zero() {
        bytes.zero()
    }

    /// Reads the whole allocation, written bytes and the (zero) rest: for tests of the
    /// zeroing.
    public func withAllocatedBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        body(UnsafeRawBufferPointer(start: bytes.base, count: bytes.allocated))
    }

    /// A copy of the bytes as an array: for tests and for replies that hold no secret.
    public func copyBytes() -> [UInt8] {
        withUnsafeBytes { Array($0) }
    }
}
