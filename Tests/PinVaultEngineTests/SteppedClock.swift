import PinVaultSystem

/// A wall clock a test moves by hand, as NTP or an RTC reset would step the real one.
final class SteppedClock: @unchecked Sendable {
    private let lock = ConditionLock()
    private var seconds: Int64

    init(_ seconds: Int64 = 1_800_000_000) {
        self.seconds = seconds
    }

    /// The engine's `now`.
    var now: @Sendable () -> Int64 { { [self] in lock.withLock { seconds } } }

    /// Moves the clock by `delta` seconds (negative: back).
    func step(by delta: Int64) {
        lock.withLock { seconds += delta }
    }

    var current: Int64 { lock.withLock { seconds } }
}
