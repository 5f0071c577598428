import Glibc

/// The store's mutex. Error-checking, so that a `read`/`write` nested in another on the
/// same thread fails with `StoreError.reentrantAccess` instead of deadlocking.
final class StoreLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() throws(FileSystemError) {
        var attributes = pthread_mutexattr_t()
        var code = pthread_mutexattr_init(&attributes)
        guard code == 0 else { throw FileSystemError(call: "pthread_mutexattr_init", errno: code) }
        defer { pthread_mutexattr_destroy(&attributes) }
        code = pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
        guard code == 0 else { throw FileSystemError(call: "pthread_mutexattr_settype", errno: code) }
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        code = pthread_mutex_init(mutex, &attributes)
        guard code == 0 else {
            mutex.deallocate()
            throw FileSystemError(call: "pthread_mutex_init", errno: code)
        }
        self.mutex = mutex
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` holding the lock; rethrows whatever `body` throws, unchanged.
    func withLock<T>(_ body: () throws -> T) throws -> T {
        let code = pthread_mutex_lock(mutex)
        guard code == 0 else {
            throw code == EDEADLK ? StoreError.reentrantAccess : StoreError.lockFailed(code)
        }
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
