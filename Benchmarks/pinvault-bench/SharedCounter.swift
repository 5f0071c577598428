import Foundation

/// Hands out at most `limit` tickets to threads that compete for work.
final class SharedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private let limit: Int
    private var taken = 0

    init(limit: Int) {
        self.limit = limit
    }

    /// True (and one ticket fewer) while tickets are left.
    func take() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard taken < limit else { return false }
        taken += 1
        return true
    }
}
