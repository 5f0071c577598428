import Glibc
import PinVaultCrypto
import PinVaultSystem

/// A connection's received bytes, in secret memory because requests carry PINs.
///
/// Grows by doubling from a small start up to `limit`, the framing's
/// `maxMessageBytes`. The framing (its door's: `Framing`) scans each byte once, and
/// reads append only what arrived, so a peer trickling a frame one byte per read
/// costs linear time. A consumed frame is zeroed in place before the rest moves
/// down, and a grown-out buffer is zeroed when released, so no copy of a request
/// outlives it.
///
/// Exclusivity: `storage` and `frames` are exempt from Swift's dynamic exclusivity
/// check (~75 instructions per access, four accesses per frame). `storage` is only
/// loaded, and replaced in `grow()` while nothing else reads it; `frames` is mutated
/// only by its own methods, which receive plain bytes and cannot reach this object. So
/// no access to either can overlap a conflicting one, here or in any new code that
/// keeps to this: never hand `frames` or `storage` to a closure that reaches `self`.
final class InputBuffer {
    enum ReadResult: Equatable {
        case received(Int)
        case wouldBlock
        case endOfStream
        case full
        case failed(Int32)
    }


    private static let initialCapacity = 4096
    let limit: Int
    @exclusivity(unchecked) private var storage: SecretBytes
    @exclusivity(unchecked) private var frames: any Framing

    init(framing: any Framing) throws(CryptoError) {
        limit = max(framing.maxMessageBytes, 1)
        storage = try SecretBytes(capacity: min(limit, Self.initialCapacity))
        frames = framing
    }

    var count: Int { storage.count }
    var isFull: Bool { storage.count >= limit }
    /// Whether the last read left room in the current allocation.
    var hasFreeSpace: Bool { storage.count < storage.capacity }

    /// One `read(2)` into the free space, growing first when the buffer is full.
    func read(from fd: Int32) -> ReadResult {
        if storage.count == storage.capacity {
            guard storage.capacity < limit else { return .full }
            do {
                try grow()
            } catch {
                return .failed(ENOMEM)
            }
        }
        var result = ReadResult.wouldBlock
        storage.appendIntoFreeSpace { free in
            result = Self.read(fd, into: free)
            if case .received(let count) = result { return count }
            return 0
        }
        return result
    }

    private static func read(_ fd: Int32, into free: UnsafeMutableRawBufferPointer) -> ReadResult {
        let count: Int?
        do {
            count = try Syscall.nonBlocking("read") { Glibc.read(fd, free.baseAddress, free.count) }
        } catch {
            return .failed(error.errno)
        }
        guard let count else { return .wouldBlock }
        return count > 0 ? .received(count) : .endOfStream
    }

    /// Whether a whole frame has arrived. Frames are taken one at a time: call
    /// `consumeFrame()` before asking again.
    func nextFrame() -> FrameEvent {
        storage.withUnsafeBytes { frames.next(in: $0) }
    }

    /// Gives `body` the bytes of `range`, a frame `nextFrame()` returned.
    func withFrame<R>(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        storage.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    /// Drops the frame `nextFrame()` returned, with its framing: its bytes are zeroed
    /// and the rest moves down.
    func consumeFrame() {
        let remaining = storage.withUnsafeMutableBytes { frames.compact($0, filled: storage.count) }
        storage.truncate(to: remaining)
    }

    private func grow() throws(CryptoError) {
        let larger = try SecretBytes(capacity: min(limit, storage.capacity * 2))
        storage.withUnsafeBytes { old in
            larger.appendIntoFreeSpace { new in
                if let source = old.baseAddress, let target = new.baseAddress, old.count > 0 {
                    target.copyMemory(from: source, byteCount: old.count)
                }
                return old.count
            }
        }
        storage = larger  // the old buffer is zeroed by sodium_free
    }
}
