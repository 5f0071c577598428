import Glibc
import PinVaultCrypto
import PinVaultDoor
import PinVaultSystem

/// A connection's received bytes, in secret memory because requests carry PINs.
///
/// Grows by doubling from one page up to `limit`, the framing's `maxMessageBytes`,
/// each growth granted by the event loop (its share of the locked input memory), and
/// shrinks back to the page once a large message is consumed. The framing (its
/// door's: `Framing`) scans each byte once, and reads append only what arrived, so a
/// peer trickling a frame one byte per read costs linear time. A consumed frame is
/// zeroed in place before the rest moves down, and a grown-out allocation is zeroed
/// when released (`sodium_free`), so no copy of a request outlives it.
///
/// A value held in the connection's loop-only state (`ConnectionState`): it keeps its
/// own count of the bytes filled and uses its `SecretBytes` only as an allocation.
struct InputBuffer {
    enum ReadResult: Equatable {
        case received(Int)
        case wouldBlock
        case endOfStream
        case full
        case failed(Int32)
        /// The message needs a larger buffer, and the locked memory it would take was refused.
        case noRoom
    }

    /// One page of locked memory for an idle connection: `sodium_malloc` puts a 16-byte
    /// canary before the bytes and rounds the two up to whole pages.
    private static let initialCapacity = 4096 - 16
    /// The largest the buffer grows.
    let limit: Int
    private var storage: SecretBytes
    /// Bytes received and not yet consumed, from the start of `storage`.
    private(set) var count = 0
    private var framing: any Framing

    init(framing: any Framing) throws(CryptoError) {
        limit = max(framing.maxMessageBytes, 1)
        storage = try SecretBytes(capacity: min(limit, Self.initialCapacity))
        self.framing = framing
    }

    var isFull: Bool { count >= limit }
    /// Bytes allocated beyond the first page: what a large message made it lock.
    var grownBytes: Int { storage.capacity - min(limit, Self.initialCapacity) }
    /// Whether the last read left room in the current allocation.
    var hasFreeSpace: Bool { count < storage.capacity }

    /// One `read(2)` into the free space, growing first when the buffer is full and
    /// `mayGrow` grants the bytes the growth adds (it is asked once per growth).
    mutating func read(from fd: Int32, mayGrow: (Int) -> Bool = { _ in true }) -> ReadResult {
        if count == storage.capacity {
            guard storage.capacity < limit else { return .full }
            guard mayGrow(grownCapacity - storage.capacity) else { return .noRoom }
            do {
                try grow()
            } catch {
                return .failed(ENOMEM)
            }
        }
        let filled = count
        let result = storage.withUnsafeMutableAllocation { allocation in
            Self.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: allocation[filled...]))
        }
        if case .received(let received) = result { count += received }
        return result
    }

    private static func read(_ fd: Int32, into free: UnsafeMutableRawBufferPointer) -> ReadResult {
        let received: Int?
        do {
            received = try Syscall.nonBlocking("read") { Glibc.read(fd, free.baseAddress, free.count) }
        } catch {
            return .failed(error.errno)
        }
        guard let received else { return .wouldBlock }
        return received > 0 ? .received(received) : .endOfStream
    }

    /// Whether a whole frame has arrived. Frames are taken one at a time: call
    /// `consumeFrame()` before asking again.
    mutating func nextFrame() -> FrameEvent {
        let filled = count
        return storage.withUnsafeMutableAllocation { allocation in
            framing.next(in: UnsafeRawBufferPointer(rebasing: allocation[..<filled]))
        }
    }

    /// Gives `body` the bytes of `range`, a frame `nextFrame()` returned.
    func withFrame<R>(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        storage.withUnsafeMutableAllocation { body(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    /// Drops the frame `nextFrame()` returned, with its framing: its bytes are zeroed
    /// and the rest moves down (`Framing.compact`). Returns the bytes of locked memory
    /// given back (`grownBytes` before less after).
    @discardableResult
    mutating func consumeFrame() -> Int {
        let filled = count
        count = storage.withUnsafeMutableAllocation { framing.compact($0, filled: filled) }
        return shrink()
    }

    /// Gives up a grown allocation once what is left fits the first one: a large
    /// message locks a large buffer only while it is being received and handled.
    /// Returns the bytes given back (none when no smaller allocation could be had).
    private mutating func shrink() -> Int {
        let grown = grownBytes
        let first = min(limit, Self.initialCapacity)
        guard grown > 0, count <= first, let smaller = try? SecretBytes(capacity: first) else { return 0 }
        let filled = count
        storage.withUnsafeMutableAllocation { old in
            smaller.withUnsafeMutableAllocation { new in
                if let source = old.baseAddress, let target = new.baseAddress, filled > 0 {
                    target.copyMemory(from: source, byteCount: filled)
                }
            }
        }
        storage = smaller  // the large allocation is zeroed by sodium_free
        return grown
    }

    /// The capacity the next growth makes: double, at most `limit`.
    private var grownCapacity: Int { min(limit, storage.capacity * 2) }

    private mutating func grow() throws(CryptoError) {
        let larger = try SecretBytes(capacity: grownCapacity)
        let filled = count
        storage.withUnsafeMutableAllocation { old in
            larger.withUnsafeMutableAllocation { new in
                if let source = old.baseAddress, let target = new.baseAddress, filled > 0 {
                    target.copyMemory(from: source, byteCount: filled)
                }
            }
        }
        storage = larger  // the old allocation is zeroed by sodium_free
    }
}
