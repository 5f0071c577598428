import Glibc

/// Readings of `CLOCK_MONOTONIC`, in nanoseconds.
enum Monotonic {
    /// Now, in nanoseconds since an arbitrary point.
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Seconds elapsed since `start` (a reading of `now()`).
    static func seconds(since start: UInt64) -> Double {
        Double(now() &- start) / 1e9
    }

    /// Runs `body` and returns its result with the seconds it took.
    static func measure<T>(_ body: () throws -> T) rethrows -> (result: T, seconds: Double) {
        let start = now()
        let result = try body()
        return (result, seconds(since: start))
    }
}
