import PinVaultCrypto
import PinVaultSystem

/// Replies finished on worker threads, waiting for the event loop to write them.
///
/// Guarded by a pthread mutex (`ConditionLock`, its condition unused), not by
/// Synchronization's `Mutex`: ThreadSanitizer cannot see the hand-off of that one (its
/// contended path runs in the uninstrumented runtime, and the kernel passes the lock
/// on), so every reply handed from a pool to the loop would be a race to it, and a real
/// one on a reply buffer could not be told from those (docs/SANITIZERS.md).
final class CompletionQueue: @unchecked Sendable {
    private let lock = ConditionLock()
    private var pending: [(connection: UInt64, reply: ReplyBuffer)] = []

    func push(connection: UInt64, reply: ReplyBuffer) {
        lock.withLock { pending.append((connection, reply)) }
    }

    /// Whether no reply waits for the loop.
    var isEmpty: Bool {
        lock.withLock { pending.isEmpty }
    }

    /// Everything queued so far, oldest first.
    func takeAll() -> [(connection: UInt64, reply: ReplyBuffer)] {
        lock.withLock {
            // Keep the storage of an empty line for the next push.
            guard !pending.isEmpty else { return [] }
            defer { pending = [] }
            return pending
        }
    }

    /// The reply queued for `connection`, taken out of the line; nil when none is.
    /// A connection has at most one call in flight, so at most one reply queued.
    func take(connection: UInt64) -> ReplyBuffer? {
        lock.withLock {
            guard let index = pending.firstIndex(where: { $0.connection == connection }) else { return nil }
            return pending.remove(at: index).reply
        }
    }
}
