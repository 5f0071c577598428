import Glibc
import PinVaultSystem

/// Descriptors of a handler's own that the event loop watches beside its connections:
/// an outgoing connection the handler speaks on (the per-user agent's to pinvaultd), so
/// that its replies are read and answered on the loop, with no thread in between. Each
/// descriptor's `ready` runs on the loop's thread in the turn that saw it readable (or
/// hung up, or in error); it reads what it can and must not block.
///
/// Watch and stop watching from the loop's thread (a handler's `handle`, or a `ready`).
///
/// Work a handler cannot do on the loop (it blocks: a prompt program's conversation)
/// reports back through `post`, from any thread: the event runs on the loop's thread
/// in its next turn, so that the handler's state has one owner, the loop.
public final class LoopDescriptors: Sendable {
    private let epoll: Epoll
    private let wakeup: Wakeup
    /// Events posted and not run yet, oldest first.
    private let postedLock = ConditionLock()
    nonisolated(unsafe) private var posted: [@Sendable () -> Void] = []
    /// The watched descriptors by token; the loop's thread alone uses them, the lock
    /// only makes that checkable.
    private let lock = ConditionLock()
    nonisolated(unsafe) private var watched: [UInt64: @Sendable () -> Void] = [:]
    nonisolated(unsafe) private var nextToken = LoopDescriptors.firstToken

    /// Above every connection's token (those start at 2^32 and count one a connection).
    static let firstToken: UInt64 = 1 << 48

    init(epoll: Epoll, wakeup: Wakeup) {
        self.epoll = epoll
        self.wakeup = wakeup
    }

    /// Runs `event` on the loop's thread in its next turn (from any thread; the loop's
    /// own included, where it runs after the current event).
    public func post(_ event: @escaping @Sendable () -> Void) {
        postedLock.withLock { posted.append(event) }
        wakeup.signal()
    }

    /// Runs the events posted so far, oldest first (the loop, once a turn).
    func runPosted() {
        while true {
            let events: [@Sendable () -> Void] = postedLock.withLock {
                guard !posted.isEmpty else { return [] }
                defer { posted = [] }
                return posted
            }
            if events.isEmpty { return }
            for event in events { event() }
        }
    }

    /// Watches `fd` for input (and its end); returns the token `stopWatching` takes.
    public func watch(_ fd: Int32, ready: @escaping @Sendable () -> Void) throws(SystemError) -> UInt64 {
        let token = lock.withLock {
            defer { nextToken += 1 }
            watched[nextToken] = ready
            return nextToken
        }
        do {
            try epoll.add(fd, events: .epollIn | .epollRdHup, token: token)
        } catch {
            lock.withLock { _ = watched.removeValue(forKey: token) }
            throw error
        }
        return token
    }

    /// Stops watching `fd` (registered as `token`); close it after this.
    public func stopWatching(_ fd: Int32, token: UInt64) {
        epoll.remove(fd)
        lock.withLock { _ = watched.removeValue(forKey: token) }
    }

    /// Runs the watcher of `token`, if it is one; false for a token not watched here.
    func fire(_ token: UInt64) -> Bool {
        guard token >= Self.firstToken, let ready = lock.withLock({ watched[token] }) else { return false }
        ready()
        return true
    }
}
