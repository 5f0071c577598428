import PinVaultSystem

/// A fixed set of named threads taking jobs from a bounded queue that is fair between
/// uids, with a quota per uid.
///
/// This is the KDF pool (`[kdf]` in docs/OPERATIONS.md): at most `threads` jobs run at once (so memory
/// stays under threads × memlimit), at most `queueMax` wait, and one uid holds at
/// most `perUidMax` jobs, waiting or running. Past any bound `submit` answers `.busy`
/// at once, with a hint of when to retry (and `.stopping` once it shuts down); nothing
/// ever blocks the event loop. The last
/// `adminReserve` places of the queue are kept for admins' jobs, so that a user holding
/// many uids (each within its quota) cannot fill the queue against root.
/// Waiting jobs run round-robin between uids, each uid's own in order (`FairQueue`),
/// so that uids hogging the queue delay another uid's job by about one job each.
///
/// A job carries its call's `isCancelled`: a waiting job whose peer has gone never
/// runs. It leaves the queue at the next submission or turn, whichever comes first,
/// giving back its slots and releasing its closure (and the PIN it holds) then;
/// that is before its own uid or anyone else could be refused a slot it held.
final class WorkPool: @unchecked Sendable {
    enum Admission: Equatable, Sendable {
        case accepted
        /// The queue, or the uid's share of it, is full.
        case busy(retryAfterMilliseconds: Int)
        /// The pool is shutting down and takes no job.
        case stopping
    }

    struct Snapshot: Equatable, Sendable {
        var queued: Int
        var running: Int
    }

    /// What a job that serves a peer hands back: its reply, sent by the pool once
    /// the job's slot is free again.
    typealias Answer = @Sendable () -> Void

    private struct Job {
        let uid: UInt32
        /// True once nobody waits for the job's answer any more.
        let isCancelled: @Sendable () -> Bool
        let run: @Sendable () -> Answer?
    }

    let name: String
    let threadCount: Int
    private let queueMax: Int
    private let perUidMax: Int
    /// Places of `queueMax` only admins' jobs may take.
    let adminReserve: Int
    private let lock = ConditionLock()
    /// A taken job leaves the queue at once: its closure holds the request's
    /// secrets, which must go (and be zeroed) as soon as the job has run.
    private var queue = FairQueue<Job>()
    private var running = 0
    private var perUid: [UInt32: Int] = [:]
    private var stopping = false
    private var threads: [WorkerThread] = []
    /// Exponentially weighted mean time of the jobs that ran (not of the cancelled
    /// ones, dropped in no time), for the retry hint.
    private var meanJobMilliseconds = 100.0

    init(name: String, threads: Int, queueMax: Int, perUidMax: Int, adminReserve: Int = 0) throws(SystemError) {
        self.name = name
        self.threadCount = max(threads, 1)
        self.queueMax = queueMax
        self.perUidMax = perUidMax
        self.adminReserve = min(max(adminReserve, 0), max(queueMax - 1, 0))
        var started: [WorkerThread] = []
        for index in 0..<threadCount {
            started.append(try WorkerThread.spawn(name: "\(name)-\(index)") { [self] in work() })
        }
        lock.withLock { self.threads = started }
    }

    func submit(
        uid: UInt32, isAdmin: Bool = false, isCancelled: @escaping @Sendable () -> Bool = { false },
        _ run: @escaping @Sendable () -> Void
    ) -> Admission {
        submitAnswering(uid: uid, isAdmin: isAdmin, isCancelled: isCancelled) {
            run()
            return nil
        }
    }

    /// Like `submit`, for a job that answers a peer: `run` returns the answer, and the
    /// pool runs it only after the job's slot is released, so that a peer calling
    /// again the moment it is answered never finds its own finished job still
    /// counted against its quota (a spurious `Busy`). Once `isCancelled` answers
    /// true, the job is dropped unrun if it has not begun.
    func submitAnswering(
        uid: UInt32, isAdmin: Bool = false, isCancelled: @escaping @Sendable () -> Bool = { false },
        _ run: @escaping @Sendable () -> Answer?
    ) -> Admission {
        lock.withLock {
            dropCancelled()
            let waiting = queue.count
            let room = isAdmin ? queueMax : queueMax - adminReserve
            if stopping { return .stopping }
            guard waiting < room, perUid[uid, default: 0] < perUidMax else {
                let ahead = Double(waiting + running + 1) / Double(threadCount)
                return .busy(retryAfterMilliseconds: max(50, Int((ahead * meanJobMilliseconds).rounded(.up))))
            }
            queue.append(Job(uid: uid, isCancelled: isCancelled, run: run), for: uid)
            perUid[uid, default: 0] += 1
            lock.signal()
            return .accepted
        }
    }

    /// With the lock held: takes the cancelled jobs out of the queue, gives back
    /// their slots and releases their closures (`SecretBytes` zeroes their PINs).
    private func dropCancelled() {
        for (uid, _) in queue.removeAll(where: { $0.isCancelled() }) {
            release(uid)
        }
    }

    /// With the lock held: `uid` holds one job fewer.
    private func release(_ uid: UInt32) {
        if let count = perUid[uid] {
            perUid[uid] = count > 1 ? count - 1 : nil
        }
    }

    var snapshot: Snapshot {
        lock.withLock { Snapshot(queued: queue.count, running: running) }
    }

    /// Refuses new jobs, lets the queued ones run (they see their own cancellation),
    /// and joins the threads.
    func shutdown() {
        let toJoin: [WorkerThread] = lock.withLock {
            stopping = true
            lock.broadcast()
            return threads
        }
        toJoin.forEach { $0.join() }
    }

    private func work() {
        while let job = next() {
            // Checked once more outside the lock: the peer may have left since.
            let ran = !job.isCancelled()
            let start = MonotonicClock.nanoseconds()
            let answer = ran ? job.run() : nil
            let elapsed = Double(MonotonicClock.nanoseconds() - start) / 1_000_000
            lock.withLock {
                running -= 1
                if ran { meanJobMilliseconds = meanJobMilliseconds * 0.8 + elapsed * 0.2 }
                release(job.uid)
            }
            answer?()
        }
    }

    /// The next job to run; nil once the pool stops and its queue is empty.
    private func next() -> Job? {
        lock.withLock {
            while true {
                dropCancelled()
                if let job = queue.removeFirst() {
                    running += 1
                    return job
                }
                if stopping { return nil }
                lock.wait()
            }
        }
    }
}
