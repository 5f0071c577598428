import Glibc

/// Time that never jumps: for idle timeouts, watchdog pings and latency figures.
/// Stored times (lockouts, expiries) use the wall clock instead, since they must
/// survive a reboot.
enum MonotonicClock {
    static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    static func milliseconds() -> Int64 { Int64(nanoseconds() / 1_000_000) }
}

/// Seconds since the Unix epoch, UTC.
@Sendable func wallClockSeconds() -> Int64 {
    Int64(time(nil))
}
