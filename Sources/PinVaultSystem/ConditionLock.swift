import Glibc

/// A pthread mutex with one condition variable, for the worker queues: Swift's
/// `Mutex` has no condition to wait on. The pthread objects live on the heap so their
/// addresses never move. Timed waits measure `CLOCK_MONOTONIC`, so that a step of the
/// wall clock neither cuts a wait short nor stretches it.
public final class ConditionLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    public init() {
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        condition.deallocate()
    }

    public func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits for a signal; call only while holding the lock (inside `withLock`).
    public func wait() {
        pthread_cond_wait(condition, mutex)
    }

    /// Waits for a signal or until `MonotonicClock.nanoseconds()` reaches `deadline`,
    /// whichever comes first; call only while holding the lock. Like `wait`, it may
    /// return early (a spurious wake-up): callers re-check what they wait for.
    public func wait(untilMonotonicNanoseconds deadline: UInt64) {
        var until = timespec(
            tv_sec: Int(deadline / 1_000_000_000),
            tv_nsec: Int(deadline % 1_000_000_000)
        )
        pthread_cond_timedwait(condition, mutex, &until)
    }

    public func signal() { pthread_cond_signal(condition) }
    public func broadcast() { pthread_cond_broadcast(condition) }
}
