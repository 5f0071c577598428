import Foundation

/// Runs one body on each of several dedicated threads at once (not a pool that might
/// run fewer at a time) and waits for all of them.
enum ThreadGroup {
    /// Calls `body(0..<count)` on `count` threads; rethrows the first error any threw.
    static func run(count: Int, _ body: @escaping @Sendable (Int) throws -> Void) throws {
        let group = DispatchGroup()
        let failure = FirstError()
        for index in 0..<count {
            group.enter()
            let thread = Thread {
                do {
                    try body(index)
                } catch {
                    failure.record(error)
                }
                group.leave()
            }
            thread.start()
        }
        group.wait()
        if let error = failure.error { throw error }
    }
}

/// The first error recorded from any thread.
private final class FirstError: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Error?

    func record(_ error: Error) {
        lock.lock()
        defer { lock.unlock() }
        if stored == nil { stored = error }
    }

    var error: Error? {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
