import PinVaultCore
import XCTest

final class FailureCounterTests: XCTestCase {
    private let policy = LockoutPolicy()
    private let now: Int64 = 1_700_000_000

    /// `failures` wrong PINs in a row, each tried as soon as the gate opened.
    private func afterWrongPins(_ failures: Int, policy: LockoutPolicy = LockoutPolicy()) -> (FailureCounter, Int64) {
        var counter = FailureCounter.cleared
        var time = now
        for _ in 0..<failures {
            if let until = counter.lockedUntil { time = max(time, until) }
            counter = counter.beginningAttempt(now: time, policy: policy)
        }
        return (counter, time)
    }

    func testCleared_isOpenActiveWithAllAttempts() {
        XCTAssertEqual(FailureCounter.cleared, FailureCounter(failedAttempts: 0, lockedUntil: nil))
        XCTAssertEqual(FailureCounter.cleared.gate(now: now, policy: policy), .open)
        XCTAssertEqual(FailureCounter.cleared.lockState(now: now, policy: policy), .active)
        XCTAssertEqual(FailureCounter.cleared.remainingAttempts(policy: policy), 10)
    }

    func testBeginningAttempt_countsTheFailureBeforeTheCheck() {
        let begun = FailureCounter.cleared.beginningAttempt(now: now, policy: policy)
        XCTAssertEqual(begun, FailureCounter(failedAttempts: 1, lockedUntil: nil))
    }

    func testBeginningTheThrottleAfterthAttempt_recordsTheWait() {
        let begun = FailureCounter(failedAttempts: 4).beginningAttempt(now: now, policy: policy)
        XCTAssertEqual(begun, FailureCounter(failedAttempts: 5, lockedUntil: now + 30))
    }

    func testBeginThenRightPin_clearsTheCounter() {
        let (counter, _) = afterWrongPins(6)
        XCTAssertEqual(counter.failedAttempts, 6)
        // The daemon writes `cleared` once the PIN proves right.
        let afterSuccess = FailureCounter.cleared
        XCTAssertEqual(afterSuccess.gate(now: now, policy: policy), .open)
        XCTAssertEqual(afterSuccess.remainingAttempts(policy: policy), 10)
    }

    func testBeginThenWrongPin_reportsRemainingAttempts() {
        let begun = FailureCounter.cleared.beginningAttempt(now: now, policy: policy)
        XCTAssertEqual(begun.outcomeOfWrongPin(policy: policy), .wrongPin(remainingAttempts: 9))
        let ninth = FailureCounter(failedAttempts: 8).beginningAttempt(now: now, policy: policy)
        XCTAssertEqual(ninth.outcomeOfWrongPin(policy: policy), .wrongPin(remainingAttempts: 1))
    }

    func testGate_duringTheWait_isLockedOutWithTheTimeLeft() {
        let counter = FailureCounter(failedAttempts: 5, lockedUntil: now + 30)
        XCTAssertEqual(counter.gate(now: now, policy: policy), .lockedOut(retryAfterSeconds: 30))
        XCTAssertEqual(counter.gate(now: now + 29, policy: policy), .lockedOut(retryAfterSeconds: 1))
        XCTAssertEqual(counter.lockState(now: now + 29, policy: policy), .throttled)
    }

    func testGate_onceTheWaitIsOver_isOpen() {
        let counter = FailureCounter(failedAttempts: 5, lockedUntil: now + 30)
        XCTAssertEqual(counter.gate(now: now + 30, policy: policy), .open)
        XCTAssertEqual(counter.lockState(now: now + 31, policy: policy), .active)
    }

    func testConsecutiveFailures_waitLongerEachTime_upToTheCap() {
        var counter = FailureCounter.cleared
        var waits: [Int64] = []
        let lenient = LockoutPolicy(maxAttempts: 20)
        for _ in 0..<14 {
            counter = counter.beginningAttempt(now: now, policy: lenient)
            waits.append((counter.lockedUntil ?? now) - now)
        }
        XCTAssertEqual(waits, [0, 0, 0, 0, 30, 60, 120, 240, 480, 960, 1920, 3600, 3600, 3600])
    }

    func testMaxAttempts_withBlock_blocks() {
        let (counter, time) = afterWrongPins(10)
        XCTAssertEqual(counter.outcomeOfWrongPin(policy: policy), .blocked)
        XCTAssertEqual(counter.gate(now: time + 1_000_000, policy: policy), .blocked)
        XCTAssertEqual(counter.lockState(now: time + 1_000_000, policy: policy), .blocked)
        XCTAssertEqual(counter.remainingAttempts(policy: policy), 0)
    }

    func testMaxAttempts_withWipe_wipes() {
        let wiping = LockoutPolicy(onMaxAttempts: .wipe)
        let (counter, _) = afterWrongPins(10, policy: wiping)
        XCTAssertEqual(counter.outcomeOfWrongPin(policy: wiping), .wiped)
        let (ninth, _) = afterWrongPins(9, policy: wiping)
        XCTAssertEqual(ninth.outcomeOfWrongPin(policy: wiping), .wrongPin(remainingAttempts: 1))
    }

    func testAPolicyTightenedBelowTheCount_blocks() {
        let counter = FailureCounter(failedAttempts: 7)
        XCTAssertEqual(counter.gate(now: now, policy: LockoutPolicy(maxAttempts: 5)), .blocked)
        XCTAssertEqual(counter.remainingAttempts(policy: LockoutPolicy(maxAttempts: 5)), 0)
    }

    func testHugeCountsAndTimes_doNotOverflow() {
        let huge = FailureCounter(failedAttempts: .max, lockedUntil: nil)
        let begun = huge.beginningAttempt(now: .max - 10, policy: LockoutPolicy(maxAttempts: .max))
        XCTAssertEqual(begun, FailureCounter(failedAttempts: .max, lockedUntil: .max))
        XCTAssertEqual(begun.gate(now: .min, policy: policy), .blocked)
        let waiting = FailureCounter(failedAttempts: 0, lockedUntil: .max)
        // A wait never exceeds throttle_max_seconds from now, however far the stored end.
        XCTAssertEqual(waiting.gate(now: .min, policy: policy), .lockedOut(retryAfterSeconds: policy.throttleMaxSeconds))
        XCTAssertEqual(waiting.gate(now: .max - 1, policy: policy), .lockedOut(retryAfterSeconds: 1))
        XCTAssertEqual(FailureCounter(failedAttempts: -5).remainingAttempts(policy: LockoutPolicy(maxAttempts: .min)), 0)
    }

    func testACrashBetweenBeginAndCheck_leavesTheAttemptCounted() {
        // The daemon durably writes the begun record, then dies before the KDF finishes.
        let stored = FailureCounter(failedAttempts: 4).beginningAttempt(now: now, policy: policy)
        // After a restart it reads back exactly that record: the attempt counted, and
        // its wait applies, although no answer was ever given.
        let reloaded = FailureCounter(failedAttempts: stored.failedAttempts, lockedUntil: stored.lockedUntil)
        XCTAssertEqual(reloaded.failedAttempts, 5)
        XCTAssertEqual(reloaded.gate(now: now + 1, policy: policy), .lockedOut(retryAfterSeconds: 29))
        XCTAssertEqual(reloaded.remainingAttempts(policy: policy), 5)
    }

    func testAWaitEndingBeyondThrottleMaxSeconds_isCappedAtIt_asAfterTheClockSteppedBack() {
        let policy = LockoutPolicy(throttleAfter: 1, throttleBaseSeconds: 30, throttleMaxSeconds: 60)
        let counter = FailureCounter(failedAttempts: 3, lockedUntil: now + 86_400)
        XCTAssertEqual(counter.gate(now: now, policy: policy), .lockedOut(retryAfterSeconds: 60))
        XCTAssertEqual(counter.cappedToClock(now: now, policy: policy), FailureCounter(failedAttempts: 3, lockedUntil: now + 60))
        let within = FailureCounter(failedAttempts: 3, lockedUntil: now + 45)
        XCTAssertEqual(within.cappedToClock(now: now, policy: policy), within)
        XCTAssertEqual(within.gate(now: now, policy: policy), .lockedOut(retryAfterSeconds: 45))
        XCTAssertEqual(FailureCounter(failedAttempts: 3, lockedUntil: .max).gate(now: now, policy: policy), .lockedOut(retryAfterSeconds: 60))
    }

    /// An admin's Unblock: nothing for a credential that is not blocked, the lockout's
    /// count cleared for a blocked one (the wrong PINs since the last success kept),
    /// and nothing but a refusal once those reach twice `maxAttempts`.
    func testUnblocking_keepsTheWrongPinsSinceSuccess_andEndsAtTwiceMaxAttempts() {
        let policy = LockoutPolicy(throttleAfter: 5, maxAttempts: 10)
        XCTAssertEqual(policy.maxWrongPinsSinceSuccess, 20)
        XCTAssertEqual(FailureCounter(failedAttempts: 6, lockedUntil: now + 60).unblocking(policy: policy), .notBlocked)
        XCTAssertEqual(
            FailureCounter(failedAttempts: 10, lockedUntil: now + 60, wrongPinsSinceSuccess: 13).unblocking(policy: policy),
            .unblocked(FailureCounter(failedAttempts: 0, lockedUntil: nil, wrongPinsSinceSuccess: 13))
        )
        XCTAssertEqual(FailureCounter(failedAttempts: 10, wrongPinsSinceSuccess: 20).unblocking(policy: policy), .refused(wrongPins: 20))
        XCTAssertEqual(FailureCounter(failedAttempts: 3, wrongPinsSinceSuccess: 19).beginningAttempt(now: now, policy: policy).wrongPinsSinceSuccess, 20)
        XCTAssertEqual(LockoutPolicy(maxAttempts: .max).maxWrongPinsSinceSuccess, .max)
    }
}

/// What a right PIN leaves when other attempts are still being checked
/// (`FailureCounter.afterRightPin`): those stay counted, the rest is cleared and told.
final class FailureCounterRightPinTests: XCTestCase {
    private let policy = LockoutPolicy(throttleAfter: 5, throttleBaseSeconds: 30, maxAttempts: 10)

    func testAlone_clearsEverything_andTellsTheWrongPinsBeforeIt() {
        let (counter, told) = FailureCounter(failedAttempts: 3).afterRightPin(stillPending: 0, policy: policy)
        XCTAssertEqual(counter, .cleared)
        XCTAssertEqual(told, 2, "three counted: two wrong PINs and its own attempt")
    }

    func testBesidePendingAttempts_keepsThemCounted_andTellsOnlyTheOthers() {
        let (counter, told) = FailureCounter(failedAttempts: 4).afterRightPin(stillPending: 2, policy: policy)
        XCTAssertEqual(counter, FailureCounter(failedAttempts: 2))
        XCTAssertEqual(told, 1)
    }

    func testAWaitStays_onlyWhileTheAttemptsStillCountedEarnOne() {
        let waiting = FailureCounter(failedAttempts: 7, lockedUntil: 1_000_000, wrongPinsSinceSuccess: 7)
        XCTAssertEqual(waiting.afterRightPin(stillPending: 5, policy: policy).counter.lockedUntil, 1_000_000)
        XCTAssertNil(waiting.afterRightPin(stillPending: 4, policy: policy).counter.lockedUntil)
    }

    /// After an Unblock (failures 0, the wrong PINs since the last success kept), the
    /// pending attempts add no failures back, and the told count never goes negative.
    func testAfterAnUnblock_addsNoFailures_andNeverTellsLessThanZero() {
        let unblocked = FailureCounter(failedAttempts: 0, lockedUntil: nil, wrongPinsSinceSuccess: 12)
        let (counter, told) = unblocked.afterRightPin(stillPending: 1, policy: policy)
        XCTAssertEqual(counter, FailureCounter(failedAttempts: 0, lockedUntil: nil, wrongPinsSinceSuccess: 1))
        XCTAssertEqual(told, 10)
        XCTAssertEqual(FailureCounter.cleared.afterRightPin(stillPending: 3, policy: policy).wrongPinsCleared, 0)
    }
}
