import Glibc

/// Every system call of PinVault that can be interrupted goes through here: `EINTR` is
/// retried in this one place, and a failure becomes one typed `SystemError` naming the
/// call. (swift-nio's `NIOPosix/System.swift` plays this role there.)
///
/// `body` is the raw call: it returns -1 (or any negative value) and sets `errno` on
/// failure, as libc does.
public enum Syscall {
    /// Runs `body` until it is not interrupted; throws its failure.
    @inlinable
    @discardableResult
    public static func run<T: BinaryInteger>(_ call: StaticString, _ body: () -> T) throws(SystemError) -> T {
        while true {
            let result = body()
            if result >= 0 { return result }
            let code = errno
            if code == EINTR { continue }
            throw SystemError(call: "\(call)", errno: code)
        }
    }

    /// Like `run`, for a non-blocking descriptor: nil when the call would block
    /// (`EAGAIN`/`EWOULDBLOCK`).
    @inlinable
    public static func nonBlocking<T: BinaryInteger>(_ call: StaticString, _ body: () -> T) throws(SystemError) -> T? {
        while true {
            let result = body()
            if result >= 0 { return result }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return nil }
            throw SystemError(call: "\(call)", errno: code)
        }
    }

    /// For `connect` on a blocking socket. A connect interrupted by a signal goes on in
    /// the background: calling it again answers `EALREADY` while it is under way and
    /// `EISCONN` once it is done, so after an interruption both count as progress.
    @inlinable
    public static func connect(_ body: () -> Int32) throws(SystemError) {
        var interrupted = false
        while true {
            if body() == 0 { return }
            let code = errno
            switch code {
            case EINTR: interrupted = true
            case EALREADY where interrupted: continue
            case EISCONN where interrupted: return
            default: throw SystemError(call: "connect", errno: code)
            }
        }
    }

    /// For calls that return their error number instead of setting `errno`
    /// (`pthread_*`, `posix_spawn`): retries `EINTR`, throws any other non-zero result.
    @inlinable
    public static func returningError(_ call: StaticString, _ body: () -> Int32) throws(SystemError) {
        while true {
            let code = body()
            if code == 0 { return }
            if code == EINTR { continue }
            throw SystemError(call: "\(call)", errno: code)
        }
    }
}
