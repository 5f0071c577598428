import Foundation

/// A lock-guarded list of what went wrong on other threads, for the test to assert on.
final class FailureLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String] = []

    func note(_ failure: String) {
        lock.lock()
        entries.append(failure)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }
}
