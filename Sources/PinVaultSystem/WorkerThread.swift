import CPinVaultSystem
import Glibc

/// A plain pthread running one closure: the daemon's threads are few, long-lived and
/// named (`pv-loop`, `pv-store`, `pv-kdf-N`) so they read well in `top -H`.
public struct WorkerThread: Sendable {
    private let handle: pthread_t

    private final class Start {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }

    public static func spawn(name: String, _ body: @escaping @Sendable () -> Void) throws(SystemError) -> WorkerThread {
        let start = Unmanaged.passRetained(Start(name: name, body: body))
        var handle = pthread_t()
        let result = pthread_create(&handle, nil, { context in
            guard let context else { return nil }
            let start = Unmanaged<Start>.fromOpaque(context).takeRetainedValue()
            _ = CPinVaultSystem_set_thread_name(String(start.name.prefix(15)))
            start.body()
            return nil
        }, start.toOpaque())
        guard result == 0 else {
            start.release()
            throw SystemError(call: "pthread_create", errno: result)
        }
        return WorkerThread(handle: handle)
    }

    public func join() {
        pthread_join(handle, nil)
    }

    /// Lets the thread go: nobody joins it, its resources go when it ends.
    public func detach() {
        pthread_detach(handle)
    }
}
