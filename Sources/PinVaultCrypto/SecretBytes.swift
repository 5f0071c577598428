import CSodium

/// Bytes that must not outlive their use: PINs, seeds, keys, the pepper.
///
/// The storage comes from `sodium_malloc` (guard pages, `mlock` where allowed) and is
/// zeroed when the last reference goes: by `sodium_free`, or, for a small secret, before
/// its allocation is kept for the next one (`SecretPool`). The bytes are reachable only
/// through closures; the type is neither `Codable` nor `CustomStringConvertible`, and
/// compares only in constant time.
///
/// `count` may be smaller than `capacity`, so that a value of unknown length (a PIN
/// being unescaped from JSON, a file being read) can be written in place without ever
/// passing through a Swift `Array` or `String`.
///
/// Thread-safety: an instance may move between threads, but must not be mutated from
/// two at once. PinVault hands each request's secrets to one thread at a time.
public final class SecretBytes: @unchecked Sendable {
    private let base: UnsafeMutableRawPointer
    /// Bytes allocated.
    public let capacity: Int
    /// Bytes in use, from the start of the buffer.
    public private(set) var count: Int
    /// The size of a pooled allocation (`SecretPool`); nil for one of its own.
    private let pooledSize: Int?
    /// Whether `protect` ever took access away: such pages are freed, never pooled.
    private var everProtected = false

    /// A zero-filled buffer of `capacity` bytes with `count` 0.
    public init(capacity: Int) throws(CryptoError) {
        guard capacity >= 0 else { throw CryptoError.invalidLength("capacity") }
        try Sodium.ensureInitialized()
        let pointer: UnsafeMutableRawPointer
        if let size = SecretPool.size(for: capacity) {
            guard let pooled = SecretPool.take(size) else { throw CryptoError.outOfMemory }
            pointer = pooled
            pooledSize = size
        } else {
            guard let allocated = sodium_malloc(capacity) else { throw CryptoError.outOfMemory }
            sodium_memzero(allocated, capacity)
            pointer = allocated
            pooledSize = nil
        }
        pointer.bindMemory(to: UInt8.self, capacity: pooledSize ?? capacity)
        self.base = pointer
        self.capacity = capacity
        self.count = 0
    }

    /// A zero-filled buffer whose `count` is `count`.
    public convenience init(zeroed count: Int) throws(CryptoError) {
        try self.init(capacity: count)
        self.count = count
    }

    /// `count` bytes from `randombytes_buf`.
    public static func random(count: Int) throws(CryptoError) -> SecretBytes {
        let secret = try SecretBytes(zeroed: count)
        randombytes_buf(secret.base, count)
        return secret
    }

    /// A copy of `bytes`. For tests and for values that are secret from here on
    /// (the caller remains responsible for zeroing its own copy).
    public convenience init(copying bytes: UnsafeRawBufferPointer) throws(CryptoError) {
        try self.init(zeroed: bytes.count)
        if let source = bytes.baseAddress, bytes.count > 0 {
            base.copyMemory(from: source, byteCount: bytes.count)
        }
    }

    deinit {
        if let pooledSize, !everProtected {
            SecretPool.give(base, size: pooledSize)  // zeroes it before keeping it
        } else {
            sodium_free(base)  // zeroes the whole allocation before unmapping it
        }
    }

    /// Reads the `count` bytes in use.
    public func withUnsafeBytes<R, E: Error>(
        _ body: (UnsafeRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Writes the `count` bytes in use.
    public func withUnsafeMutableBytes<R, E: Error>(
        _ body: (UnsafeMutableRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        try body(UnsafeMutableRawBufferPointer(start: base, count: count))
    }

    /// Reads and writes the whole allocation, whatever `count` says: for a buffer that
    /// keeps its own count (the transport's input, read and framed many times per
    /// request), so that it pays for no access to `count`.
    public func withUnsafeMutableAllocation<R, E: Error>(
        _ body: (UnsafeMutableRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        try body(UnsafeMutableRawBufferPointer(start: base, count: capacity))
    }

    /// Writes into the whole capacity, then sets `count` to what `body` returns
    /// (clamped to `0...capacity`). Bytes past the new count are zeroed.
    public func fill<E: Error>(
        _ body: (UnsafeMutableRawBufferPointer) throws(E) -> Int
    ) throws(E) {
        let written = try body(UnsafeMutableRawBufferPointer(start: base, count: capacity))
        count = min(max(written, 0), capacity)
        if count < capacity {
            sodium_memzero(base + count, capacity - count)
        }
    }

    /// Writes into the free space after `count` and adds what `body` returns (clamped
    /// to the free space) to `count`. Costs only what is written, unlike `fill`: for a
    /// buffer filled a little at a time, such as a socket's input.
    public func appendIntoFreeSpace<E: Error>(
        _ body: (UnsafeMutableRawBufferPointer) throws(E) -> Int
    ) throws(E) {
        let free = capacity - count
        let written = try body(UnsafeMutableRawBufferPointer(start: base + count, count: free))
        count += min(max(written, 0), free)
    }

    /// Zeroes the bytes from `newCount` on and makes `newCount` the count (a larger
    /// `newCount` changes nothing). Costs only what it drops.
    public func truncate(to newCount: Int) {
        let kept = min(max(newCount, 0), count)
        if kept < count {
            sodium_memzero(base + kept, count - kept)
        }
        count = kept
    }

    /// Drops the first `dropped` bytes (all of them, for more than `count`): the rest
    /// moves to the front, and the bytes it leaves are zeroed. For a buffer read a line at
    /// a time (a prompt program's answers).
    public func removeFirst(_ dropped: Int) {
        let removed = min(max(dropped, 0), count)
        let kept = count - removed
        // Forward, byte by byte: the regions overlap, the destination first.
        for index in 0..<kept {
            base.storeBytes(of: base.load(fromByteOffset: removed + index, as: UInt8.self), toByteOffset: index, as: UInt8.self)
        }
        sodium_memzero(base + kept, count - kept)
        count = kept
    }

    /// The buffer's start as libsodium's `unsigned char *`, for this module's calls into
    /// libsodium only. Never null, even when `count` is 0.
    func withSodiumPointer<R, E: Error>(
        _ body: (UnsafeMutablePointer<UInt8>) throws(E) -> R
    ) throws(E) -> R {
        try body(base.assumingMemoryBound(to: UInt8.self))
    }

    /// Appends one byte; returns false, changing nothing, when full.
    @discardableResult
    public func append(_ byte: UInt8) -> Bool {
        guard count < capacity else { return false }
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
        return true
    }

    /// Who may touch the pages (`sodium_mprotect_*`). A buffer made `.noAccess`
    /// faults on any read or write — a stray pointer, a heap overflow next door, a
    /// bug that would copy it — until it is made readable again; `sodium_free`
    /// (at deinit) makes it writable before it zeroes it, so release needs no step.
    public enum Access: Sendable {
        case noAccess, readOnly, readWrite
    }

    /// Sets the protection of the buffer's pages. Only for a buffer that one owner
    /// serialises: a thread reading it while another takes the access away faults.
    /// Throws `.protectionFailed` when `mprotect` refuses (it then changed nothing).
    public func protect(_ access: Access) throws(CryptoError) {
        if access != .readWrite { everProtected = true }
        let result = switch access {
        case .noAccess: sodium_mprotect_noaccess(base)
        case .readOnly: sodium_mprotect_readonly(base)
        case .readWrite: sodium_mprotect_readwrite(base)
        }
        guard result == 0 else { throw CryptoError.protectionFailed }
    }

    /// Zeroes the contents and sets `count` to 0.
    public func wipe() {
        sodium_memzero(base, capacity)
        count = 0
    }

    /// Constant-time equality of contents (lengths are compared first, openly:
    /// a length is not the secret).
    public func constantTimeEquals(_ other: SecretBytes) -> Bool {
        guard count == other.count else { return false }
        if count == 0 { return true }
        return sodium_memcmp(base, other.base, count) == 0
    }
}
