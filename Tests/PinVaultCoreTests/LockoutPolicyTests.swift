import PinVaultCore
import XCTest

final class LockoutPolicyTests: XCTestCase {
    func testDefaults_matchTheDesign() {
        let policy = LockoutPolicy()
        XCTAssertEqual(policy.throttleAfter, 5)
        XCTAssertEqual(policy.throttleBaseSeconds, 30)
        XCTAssertEqual(policy.throttleMaxSeconds, 3600)
        XCTAssertEqual(policy.maxAttempts, 10)
        XCTAssertEqual(policy.onMaxAttempts, .block)
    }

    func testDelay_followsTheDefaultSchedule() {
        let policy = LockoutPolicy()
        let schedule = (0...14).map { policy.delay(afterFailures: $0) }
        XCTAssertEqual(schedule, [0, 0, 0, 0, 0, 30, 60, 120, 240, 480, 960, 1920, 3600, 3600, 3600])
    }

    func testDelay_forHugeCounts_staysAtTheCapWithoutOverflow() {
        let policy = LockoutPolicy(throttleMaxSeconds: .max)
        XCTAssertEqual(policy.delay(afterFailures: 5 + 58), 30 << 58, "the last doubling that fits")
        XCTAssertEqual(policy.delay(afterFailures: 5 + 59), .max, "the first that would overflow")
        XCTAssertEqual(LockoutPolicy().delay(afterFailures: .max), 3600)
        XCTAssertEqual(policy.delay(afterFailures: .max), .max)
        XCTAssertEqual(policy.delay(afterFailures: 5 + 10), 30 << 10)
    }

    func testDelay_whenBaseExceedsMax_isTheMax() {
        XCTAssertEqual(LockoutPolicy(throttleBaseSeconds: 100, throttleMaxSeconds: 50).delay(afterFailures: 5), 50)
    }

    func testDelay_forNegativeCounts_isZero() {
        XCTAssertEqual(LockoutPolicy().delay(afterFailures: -3), 0)
        XCTAssertEqual(LockoutPolicy().delay(afterFailures: .min), 0)
    }
}
