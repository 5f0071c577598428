import Glibc

/// The bytes of a `ReplyBuffer` while one writer appends to them (`ReplyBuffer.write`).
///
/// A non-copyable value: there is one owner at a time, and the compiler proves it — a
/// writer that takes the bytes has them alone until it gives them back, so two writers
/// can never append to, or grow and free, the same allocation. Appends are plain
/// mutations of a value passed `inout`, checked statically and free of the runtime's
/// exclusivity check (a GetPolicy reply is some 60 appends).
///
/// Every byte from `count` to `capacity` is zero: the allocation starts zeroed, appends
/// write only at `count`, and growth zeroes and frees what it gives up.
public struct ReplyBytes: ~Copyable {
    @usableFromInline var base: UnsafeMutableRawPointer
    @usableFromInline var allocated: Int
    @usableFromInline var written: Int

    /// A zeroed allocation of `capacity` bytes, none written.
    init(capacity: Int) {
        let initial = max(capacity, 16)
        base = UnsafeMutableRawPointer.allocate(byteCount: initial, alignment: 1)
        base.initializeMemory(as: UInt8.self, repeating: 0, count: initial)
        allocated = initial
        written = 0
    }

    deinit {
        explicit_bzero(base, allocated)
        base.deallocate()
    }

    /// Bytes written.
    public var count: Int { written }

    /// Appends one byte.
    @inlinable
    public mutating func append(_ byte: UInt8) {
        let used = written
        if used == allocated { grow(toHold: used + 1) }
        base.storeBytes(of: byte, toByteOffset: used, as: UInt8.self)
        written = used + 1
    }

    /// Appends `bytes`.
    @inlinable
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
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
    public mutating func append(byteCount: Int, _ body: (UnsafeMutableRawPointer) -> Void) {
        let used = written
        let needed = used + byteCount
        if needed > allocated { grow(toHold: needed) }
        body(base + used)
        written = needed
    }

    /// Moves the bytes to a zeroed allocation of at least `needed` bytes (doubling),
    /// zeroing and freeing the old one. Kept out of line: appends rarely grow.
    @inline(never) @usableFromInline
    mutating func grow(toHold needed: Int) {
        var newCapacity = allocated
        while newCapacity < needed { newCapacity *= 2 }
        let newBase = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 1)
        newBase.initializeMemory(as: UInt8.self, repeating: 0, count: newCapacity)
        newBase.copyMemory(from: base, byteCount: written)
        explicit_bzero(base, allocated)
        base.deallocate()
        base = newBase
        allocated = newCapacity
    }

    /// Drops the first `n` bytes, moving the rest to the front and zeroing the bytes
    /// vacated at the end.
    mutating func consume(_ n: Int) {
        let dropped = min(max(n, 0), written)
        guard dropped > 0 else { return }
        let remaining = written - dropped
        if remaining > 0 {
            base.copyMemory(from: base + dropped, byteCount: remaining)
        }
        explicit_bzero(base + remaining, dropped)
        written = remaining
    }

    /// Zeroes what was written; the allocation is kept.
    mutating func zero() {
        explicit_bzero(base, written)
        written = 0
    }
}
