import CSodium
import Synchronization

/// Secret memory kept for reuse: `sodium_malloc` allocations of a few sizes, handed back
/// zeroed when a `SecretBytes` is released, and handed out again to the next one of their
/// size instead of a new allocation.
///
/// A `sodium_malloc` is an `mmap` of guard pages around the secret's page, an `mprotect`
/// of each guard and an `mlock`; `sodium_free` undoes each. A request makes several
/// short-lived secrets (a CTAP message as reassembled, a passkey's derived seed, its
/// scalar, an HMAC's key), so on a fast path such as a passkey's GetAssertion those system
/// calls cost more than the cryptography. A pooled allocation keeps its guard pages and
/// its lock; only its contents go, zeroed on release as `sodium_free` would have.
///
/// Sizes are rounded up to a power of two from 32 to 2,048 bytes, one page's worth, so
/// that a few kinds serve every length (a CTAP message's length varies with its relying
/// party). A secret may be shorter than its allocation: the bytes past its capacity sit
/// before the trailing guard page, out of reach through `SecretBytes`, which bounds every
/// access by its capacity. Larger secrets, and those whose pages were ever protected
/// (`SecretBytes.protect`: long-lived keys), are allocated and freed as before.
///
/// At most `keptPerSize` allocations of each size are kept, one locked page each: 7 sizes × 8 pages: under 250 KiB locked at the most, whatever the traffic was.
enum SecretPool {
    static let smallest = 32
    static let largest = 2048
    static let keptPerSize = 8

    /// The kept allocations of each size, 32 bytes first (their addresses: a pointer is
    /// not `Sendable`, and each is owned by the pool alone while kept).
    private static let free = Mutex<[[UInt]]>(
        Array(repeating: [], count: largest.trailingZeroBitCount - smallest.trailingZeroBitCount + 1))

    /// The allocation size a secret of `capacity` bytes gets; nil when it is not pooled.
    static func size(for capacity: Int) -> Int? {
        guard capacity <= largest else { return nil }
        var size = smallest
        while size < capacity { size <<= 1 }
        return size
    }

    private static func index(of size: Int) -> Int {
        size.trailingZeroBitCount - smallest.trailingZeroBitCount
    }

    /// A zeroed allocation of exactly `size` (from `size(for:)`): a kept one, or a new one.
    static func take(_ size: Int) -> UnsafeMutableRawPointer? {
        if let kept = free.withLock({ $0[index(of: size)].popLast() }), let pointer = UnsafeMutableRawPointer(bitPattern: kept) {
            return pointer
        }
        guard let pointer = sodium_malloc(size) else { return nil }
        sodium_memzero(pointer, size)
        return pointer
    }

    /// Takes back an allocation of `size` whose pages are readable and writable: zeroed
    /// here, then kept, or freed when enough of its size are kept already.
    static func give(_ pointer: UnsafeMutableRawPointer, size: Int) {
        sodium_memzero(pointer, size)
        let address = UInt(bitPattern: pointer)
        let kept = free.withLock { lists in
            guard lists[index(of: size)].count < keptPerSize else { return false }
            lists[index(of: size)].append(address)
            return true
        }
        if !kept { sodium_free(pointer) }
    }

    /// Allocations kept, every size together (tests).
    static var keptCount: Int { free.withLock { $0.reduce(0) { $0 + $1.count } } }
}
