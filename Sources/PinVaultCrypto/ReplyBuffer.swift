import Glibc

/// A growable byte buffer for outgoing messages that never leaves a stale copy behind.
///
/// A reply may carry a secret (the unregistration token). A Swift `Array` that grows
/// frees its old storage without clearing it, so this buffer manages its own memory:
/// every allocation it gives up is zeroed first (`explicit_bzero`, which the compiler
/// may not elide), and `zero()` clears it on demand. The daemon appends replies, writes
/// them to the socket, `consume`s what was sent, and `zero()`es the rest when done.
///
/// Every byte from `count` to `capacity` is zero, always: the allocation starts zeroed,
/// appends write only at `count`, and `consume`, `zero()` and growth zero what they give
/// up. So a buffer that was `consume`d to empty or `zero()`ed holds no trace of what it
/// held, and can be reused for the next message; `zero()` clears only the bytes written.
///
/// Thread-safety: one owner at a time, like `SecretBytes`.
///
/// Exclusivity: the three stored properties are exempt from Swift's dynamic
/// exclusivity check. Every access to them is instantaneous — a load or a store of a
/// trivial value, never passed `inout` and never held across a call or a closure — so
/// the check could never find two overlapping accesses; it only cost ~75 instructions
/// per access, several per append (a GetPolicy reply is some 60 appends). Any new
/// access to them must be instantaneous too.
public final class ReplyBuffer: @unchecked Sendable {
    @exclusivity(unchecked) @usableFromInline var base: UnsafeMutableRawPointer
    @exclusivity(unchecked) @usableFromInline var allocated: Int
    @exclusivity(unchecked) @usableFromInline var written: Int = 0

    /// Bytes allocated.
    public var capacity: Int { allocated }
    /// Bytes written, from the start of the buffer.
    public var count: Int { written }

    /// An empty buffer with room for `capacity` bytes before it first grows.
    public init(capacity: Int = 1024) {
        let initial = max(capacity, 16)
        self.base = UnsafeMutableRawPointer.allocate(byteCount: initial, alignment: 1)
        self.allocated = initial
        base.initializeMemory(as: UInt8.self, repeating: 0, count: initial)
    }

    deinit {
        explicit_bzero(base, allocated)
        base.deallocate()
    }

    /// Appends one byte.
    @inlinable
    public func append(_ byte: UInt8) {
        let used = written
        if used == allocated { grow(toHold: used + 1) }
        base.storeBytes(of: byte, toByteOffset: used, as: UInt8.self)
        written = used + 1
    }

    /// Appends `bytes`.
    @inlinable
    public func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        let used = written
        let needed = used + bytes.count
        if needed > allocated { grow(toHold: needed) }
        (base + used).copyMemory(from: source, byteCount: bytes.count)
        written = needed
    }

    /// Appends `byteCount` bytes that `body` writes, all of them, at the pointer it is
    /// given: one capacity check for a short run of pieces (a key with its quotes).
    @inlinable
    public func append(byteCount: Int, _ body: (UnsafeMutableRawPointer) -> Void) {
        let used = written
        let needed = used + byteCount
        if needed > allocated { grow(toHold: needed) }
        body(base + used)
        written = needed
    }

    /// Appends the UTF-8 of a non-secret string (names, numbers, literals).
    public func append(utf8 text: String) {
        var text = text
        text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// Reads the bytes written.
    public func withUnsafeBytes<R, E: Error>(
        _ body: (UnsafeRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: base, count: written))
    }

    /// Drops the first `n` bytes (those already sent), moving the rest to the front and
    /// zeroing the bytes vacated at the end.
    public func consume(_ n: Int) {
        let dropped = min(max(n, 0), written)
        guard dropped > 0 else { return }
        let remaining = written - dropped
        if remaining > 0 {
            base.copyMemory(from: base + dropped, byteCount: remaining)
        }
        explicit_bzero(base + remaining, dropped)
        written = remaining
    }

    /// Zeroes everything written and empties the buffer (its capacity is kept). Only the
    /// bytes written need it: the rest of the allocation is zero already.
    public func zero() {
        explicit_bzero(base, written)
        written = 0
    }

    /// Reads the whole allocation, written bytes and the (zero) rest: for tests of the
    /// zeroing.
    public func withAllocatedBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        body(UnsafeRawBufferPointer(start: base, count: allocated))
    }

    /// A copy of the bytes as an array: for tests and for replies that hold no secret.
    public func copyBytes() -> [UInt8] {
        withUnsafeBytes { Array($0) }
    }

    /// Moves the bytes to a zeroed allocation of at least `needed` bytes (doubling),
    /// zeroing and freeing the old one. Kept out of line: appends rarely grow.
    @inline(never) @usableFromInline
    func grow(toHold needed: Int) {
        let oldBase = base
        let oldCapacity = allocated
        var newCapacity = oldCapacity
        while newCapacity < needed { newCapacity *= 2 }
        let newBase = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 1)
        newBase.initializeMemory(as: UInt8.self, repeating: 0, count: newCapacity)
        newBase.copyMemory(from: oldBase, byteCount: written)
        explicit_bzero(oldBase, oldCapacity)
        oldBase.deallocate()
        base = newBase
        allocated = newCapacity
    }
}
