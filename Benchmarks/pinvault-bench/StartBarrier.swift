import Foundation

/// Holds threads until all `parties` have arrived, and notes when that was: the start
/// of a timed run that should not include the threads' setup.
final class StartBarrier: @unchecked Sendable {
    private let condition = NSCondition()
    private let parties: Int
    private var arrived = 0
    private var start: UInt64 = 0

    init(parties: Int) {
        self.parties = parties
    }

    /// Waits until every party has called `arrive`.
    func arrive() {
        condition.lock()
        defer { condition.unlock() }
        arrived += 1
        if arrived == parties {
            start = Monotonic.now()
            condition.broadcast()
        }
        while arrived < parties { condition.wait() }
    }

    /// `Monotonic.now()` when the last party arrived.
    var startTime: UInt64 {
        condition.lock()
        defer { condition.unlock() }
        return start
    }
}
