import Glibc

/// Time that never jumps: for idle timeouts, watchdog pings and latency figures.
/// Stored times (lockouts, expiries) use the wall clock instead, since they must
/// survive a reboot.
public enum MonotonicClock {
    public static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    public static func milliseconds() -> Int64 { Int64(nanoseconds() / 1_000_000) }
}

/// Seconds since the Unix epoch, UTC.
public enum WallClock {
    @Sendable public static func seconds() -> Int64 {
        Int64(time(nil))
    }
}
