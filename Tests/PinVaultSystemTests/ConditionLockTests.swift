import Foundation
import Glibc
import PinVaultSystem
import XCTest

/// The timed wait the engine's session sweeper sleeps in (`ConditionLock`).
final class ConditionLockTests: XCTestCase {
    func testATimedWait_withNoSignal_returnsAtItsMonotonicDeadline() {
        let lock = ConditionLock()
        let start = MonotonicClock.nanoseconds()
        let deadline = start + 200_000_000
        lock.withLock {
            while MonotonicClock.nanoseconds() < deadline {
                lock.wait(untilMonotonicNanoseconds: deadline)
            }
        }
        let waited = MonotonicClock.nanoseconds() - start
        XCTAssertGreaterThanOrEqual(waited, 200_000_000)
        XCTAssertLessThan(waited, 2_000_000_000, "the wait overslept its monotonic deadline")
    }

    func testATimedWait_endsEarly_whenSignalled() {
        let lock = ConditionLock()
        final class Flag: @unchecked Sendable { var value = false }
        let signalled = Flag()
        let start = MonotonicClock.nanoseconds()
        let thread = Thread {
            usleep(50_000)
            lock.withLock {
                signalled.value = true
                lock.signal()
            }
        }
        thread.start()
        lock.withLock {
            let deadline = start + 10_000_000_000
            while !signalled.value && MonotonicClock.nanoseconds() < deadline {
                lock.wait(untilMonotonicNanoseconds: deadline)
            }
        }
        XCTAssertTrue(lock.withLock { signalled.value })
        XCTAssertLessThan(MonotonicClock.nanoseconds() - start, 5_000_000_000, "the signal did not end the wait")
    }

    func testADeadlineAlreadyPast_returnsAtOnce() {
        let lock = ConditionLock()
        let start = MonotonicClock.nanoseconds()
        lock.withLock { lock.wait(untilMonotonicNanoseconds: start > 1_000 ? start - 1_000 : 0) }
        XCTAssertLessThan(MonotonicClock.nanoseconds() - start, 1_000_000_000)
    }
}
