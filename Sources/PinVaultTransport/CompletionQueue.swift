import PinVaultCrypto
import Synchronization

/// Replies finished on worker threads, waiting for the event loop to write them.
final class CompletionQueue: Sendable {
    private let pending = Mutex<[(connection: UInt64, reply: ReplyBuffer)]>([])

    func push(connection: UInt64, reply: ReplyBuffer) {
        pending.withLock { $0.append((connection, reply)) }
    }

    /// Everything queued so far, oldest first.
    func takeAll() -> [(connection: UInt64, reply: ReplyBuffer)] {
        pending.withLock { items in
            // Keep the storage of an empty line for the next push.
            guard !items.isEmpty else { return [] }
            defer { items = [] }
            return items
        }
    }

    /// The reply queued for `connection`, taken out of the line; nil when none is.
    /// A connection has at most one call in flight, so at most one reply queued.
    func take(connection: UInt64) -> ReplyBuffer? {
        pending.withLock { items in
            guard let index = items.firstIndex(where: { $0.connection == connection }) else { return nil }
            return items.remove(at: index).reply
        }
    }
}
