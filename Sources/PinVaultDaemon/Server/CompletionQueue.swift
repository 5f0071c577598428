import PinVaultProtocol
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
            defer { items = [] }
            return items
        }
    }
}
