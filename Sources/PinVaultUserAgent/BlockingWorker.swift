import PinVaultSystem

/// A thread for the work that blocks — a prompt program's spawn, conversation and exit —
/// so that the agent's event loop never does. Its jobs run one at a time, in the order
/// given; a job touches nothing the loop owns: what it finds goes back to the loop as an
/// event (`LoopDescriptors.post`). The thread starts with the first job and lasts as long
/// as the agent, waiting for the next.
final class BlockingWorker: Sendable {
    private let name: String
    private let lock = ConditionLock()
    /// The jobs not begun yet, oldest first; and whether the thread runs. Under `lock`.
    nonisolated(unsafe) private var jobs: [@Sendable () -> Void] = []
    nonisolated(unsafe) private var running = false

    /// `name` names the thread (`top -H`), 15 characters at most.
    init(name: String) {
        self.name = name
    }

    /// Queues `job`; throws when the thread it needs could not start (nothing will run it).
    func run(_ job: @escaping @Sendable () -> Void) throws(SystemError) {
        let start: Bool = lock.withLock {
            jobs.append(job)
            lock.signal()
            defer { running = true }
            return !running
        }
        guard start else { return }
        do {
            _ = try WorkerThread.spawn(name: name) { [self] in work() }
        } catch {
            lock.withLock {
                jobs.removeAll()
                running = false
            }
            throw error
        }
    }

    private func work() {
        while true {
            let job: @Sendable () -> Void = lock.withLock {
                while jobs.isEmpty { lock.wait() }
                return jobs.removeFirst()
            }
            job()
        }
    }
}
