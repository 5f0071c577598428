import Foundation

/// Whether the Task that made one call was cancelled; set from the cancellation
/// handler's thread, read on the connection's queue.
final class CallCancellation: @unchecked Sendable {
    /// Guards `cancelled`.
    private let lock = NSLock()
    private var cancelled = false

    /// Marks the call cancelled.
    func cancel() {
        lock.withLock { cancelled = true }
    }

    /// Whether `cancel()` ran.
    var isCancelled: Bool {
        lock.withLock { cancelled }
    }
}
