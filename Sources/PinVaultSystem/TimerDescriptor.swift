import CPinVaultSystem
import Glibc

/// A timerfd on the monotonic clock: a descriptor an event loop watches beside its
/// sockets, readable once the time it was set to has come.
public final class TimerDescriptor: @unchecked Sendable {
    public let fd: Int32

    public init() throws(SystemError) {
        let fd = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        guard fd >= 0 else { throw SystemError.last("timerfd_create") }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Fires once at `deadline` (`MonotonicClock.nanoseconds()`), replacing any time
    /// set before; a deadline already past fires at once.
    public func fire(atMonotonicNanoseconds deadline: UInt64) {
        let at = max(deadline, 1)
        var setting = itimerspec()
        setting.it_value.tv_sec = Int(at / 1_000_000_000)
        setting.it_value.tv_nsec = Int(at % 1_000_000_000)
        _ = timerfd_settime(fd, Int32(TFD_TIMER_ABSTIME), &setting, nil)
    }

    /// Clears the expiry that made it readable.
    public func acknowledge() {
        var expirations: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &expirations) { read(fd, $0.baseAddress, 8) }
    }
}
