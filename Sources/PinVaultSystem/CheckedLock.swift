import Glibc

/// An error-checking pthread mutex: taking it again on the thread that holds it fails
/// with `EDEADLK` instead of deadlocking, so a re-entrant call is an error a caller can
/// name (the store's `reentrantAccess`).
public final class CheckedLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() throws(SystemError) {
        var attributes = pthread_mutexattr_t()
        try Syscall.returningError("pthread_mutexattr_init") { pthread_mutexattr_init(&attributes) }
        defer { pthread_mutexattr_destroy(&attributes) }
        try Syscall.returningError("pthread_mutexattr_settype") {
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
        }
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        do {
            try Syscall.returningError("pthread_mutex_init") { pthread_mutex_init(mutex, &attributes) }
        } catch {
            mutex.deallocate()
            throw error
        }
        self.mutex = mutex
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` holding the lock. `lockFailed` gets the error number when the lock
    /// cannot be taken (`EDEADLK`: this thread holds it already) and supplies the error
    /// to throw; whatever `body` throws is rethrown unchanged.
    public func withLock<T, E: Error>(
        _ body: () throws(E) -> T, lockFailed: (Int32) -> E
    ) throws(E) -> T {
        let code = pthread_mutex_lock(mutex)
        guard code == 0 else { throw lockFailed(code) }
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
