import PinVaultCore
import PinVaultCrypto
import XCTest

@testable import PinVaultEngine

/// SECURITY.md, "The wall clock": a wait never lasts longer than `throttle_max_seconds`
/// from now, and a pending unregistration never longer than `unregister.expiry_seconds`
/// from now, whatever the wall clock did — here it is stepped back a day, as an RTC
/// reset or an NTP correction can.
final class ClockStepTests: XCTestCase {
    private let pin = "258046"
    private let wrong = "370591"
    private let day: Int64 = 86_400

    private func lockedOutSeconds(_ result: Result<VaultResult, VaultError>) -> Int64? {
        if case .failure(.lockedOut(let seconds)) = result { return seconds }
        return nil
    }

    func testAWait_afterTheClockSteppedBack_neverExceedsThrottleMaxSeconds_andThenEnds() throws {
        let clock = SteppedClock()
        let lockout = LockoutPolicy(throttleAfter: 2, throttleBaseSeconds: 30, throttleMaxSeconds: 60, maxAttempts: 10)
        let fixture = try EngineFixture(lockout: lockout, now: clock.now)
        let keyId = try fixture.register(user: "alice", pin: pin)
        for _ in 0..<2 {
            guard case .failure(.wrongPin) = try fixture.authenticate(user: "alice", pin: wrong) else {
                return XCTFail("a wrong PIN was not WrongPin")
            }
        }
        XCTAssertEqual(lockedOutSeconds(try fixture.authenticate(user: "alice", pin: pin)), 30)

        clock.step(by: -day)
        let wait = try XCTUnwrap(lockedOutSeconds(try fixture.authenticate(user: "alice", pin: pin)), "still throttled")
        XCTAssertLessThanOrEqual(wait, lockout.throttleMaxSeconds, "the wait followed the clock a day back")
        guard case .success(.credentials(let views)) = fixture.submit(.list(user: "alice", ownerUid: nil)) else {
            return XCTFail("List failed")
        }
        XCTAssertLessThanOrEqual(try XCTUnwrap(views.first?.lockedUntil), clock.current + lockout.throttleMaxSeconds)

        // And the wait ends within throttle_max_seconds of the step, without a day's wait.
        clock.step(by: lockout.throttleMaxSeconds)
        guard case .success(.authenticated) = try fixture.authenticate(user: "alice", pin: pin) else {
            return XCTFail("the wait did not end throttle_max_seconds after the step: \(try fixture.record(keyId) as Any)")
        }
    }

    func testAPendingUnregistration_afterTheClockSteppedBack_neverOutlastsTheExpiry() throws {
        let clock = SteppedClock()
        let fixture = try EngineFixture(lockout: LockoutPolicy(), now: clock.now)
        let keyId = try fixture.register(user: "alice", pin: pin)
        guard case .success(.unregistrationBegun) = fixture.submit(.beginUnregister(user: "alice", keyId: keyId, pin: try fixture.secret(pin))) else {
            return XCTFail("BeginUnregister failed")
        }
        let expiry: Int64 = 300  // EngineFixture's unregisterExpirySeconds

        clock.step(by: -day)
        guard case .failure(.unregistrationPending(let expiresAt)) = try fixture.authenticate(user: "alice", pin: pin) else {
            return XCTFail("not pending")
        }
        XCTAssertLessThanOrEqual(expiresAt, clock.current + expiry, "the pending unregistration followed the clock a day back")
        guard case .success(.credentials(let views)) = fixture.submit(.list(user: "alice", ownerUid: nil)) else {
            return XCTFail("List failed")
        }
        XCTAssertLessThanOrEqual(try XCTUnwrap(views.first?.unregistrationExpiresAt), clock.current + expiry)

        clock.step(by: expiry)
        guard case .success(.authenticated) = try fixture.authenticate(user: "alice", pin: pin) else {
            return XCTFail("the pending unregistration outlasted its expiry after the step")
        }
    }
}
