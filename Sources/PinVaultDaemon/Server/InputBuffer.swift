import Glibc
import PinVaultCrypto

/// A connection's received bytes, in secret memory because requests carry PINs.
/// Grows by doubling from a small start up to `limit` (`server.max_message_bytes`);
/// consumed frames are zeroed in place before the rest moves down, and a grown-out
/// buffer is zeroed when released, so no copy of a request outlives it.
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
    private var storage: SecretBytes

    init(limit: Int) throws(CryptoError) {
        self.limit = limit
        storage = try SecretBytes(capacity: min(limit, Self.initialCapacity))
    }

    var count: Int { storage.count }
    var isFull: Bool { storage.count >= limit }

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
        storage.fill { buffer in
            let used = storage.count
            let n = Glibc.read(fd, buffer.baseAddress! + used, buffer.count - used)
            if n > 0 {
                result = .received(n)
                return used + n
            }
            if n == 0 {
                result = .endOfStream
            } else if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
                result = .failed(errno)
            }
            return used
        }
        return result
    }

    /// The length of the first frame (bytes before its NUL), or nil when no NUL has arrived.
    func firstFrameLength() -> Int? {
        storage.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress, bytes.count > 0,
                  let nul = memchr(base, 0, bytes.count)
            else { return nil }
            return base.distance(to: UnsafeRawPointer(nul))
        }
    }

    /// Gives `body` the first `length` bytes.
    func withFrame<R>(length: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        storage.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0.prefix(length))) }
    }

    /// Drops the first `length` bytes, zeroing them: the rest moves down and the
    /// vacated tail is zeroed too.
    func consume(_ length: Int) {
        let remaining = storage.count - length
        storage.fill { buffer in
            guard let base = buffer.baseAddress else { return 0 }
            if remaining > 0 {
                memmove(base, base + length, remaining)
            }
            return max(remaining, 0)
        }
    }

    private func grow() throws(CryptoError) {
        let larger = try SecretBytes(capacity: min(limit, storage.capacity * 2))
        let used = storage.count
        storage.withUnsafeBytes { old in
            larger.fill { new in
                if let source = old.baseAddress, let target = new.baseAddress, used > 0 {
                    target.copyMemory(from: source, byteCount: used)
                }
                return used
            }
        }
        storage = larger  // the old buffer is zeroed by sodium_free
    }
}
