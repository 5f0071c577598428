import Foundation
import PinVaultTestKit
import XCTest

/// Failed attempts (SECURITY.md, "The lockout"): WrongPin, LockedOut, CredentialBlocked and Unblock,
/// CredentialWiped — and what does and does not count.
final class LockoutTests: DaemonTestCase {
    private let wrongPin = "999999"

    /// Registers `user` and returns its keyId.
    @discardableResult
    private func registered(_ user: String) throws -> String {
        try XCTUnwrap(try client.register(user: user, pin: pin).string("keyId"))
    }

    func testWrongPins_countDownRemainingAttempts_andARightPinClearsTheCount() throws {
        try startDaemon()
        let keyId = try registered("alice")
        for remaining in [4, 3] {
            let reply = try client.authenticate(user: "alice", pin: wrongPin)
            XCTAssertError(reply, "WrongPin")
            XCTAssertEqual(reply.int("remainingAttempts"), remaining)
        }
        let listed = try client.credential(keyId: keyId)
        XCTAssertEqual(listed.int("failedAttempts"), 2)
        XCTAssertEqual(listed.int("remainingAttempts"), 3)
        XCTAssertEqual(listed.string("state"), "active")

        XCTAssertSuccess(try client.authenticate(user: "alice", pin: pin))
        XCTAssertEqual(try client.credential(keyId: keyId).int("failedAttempts"), 0)
    }

    func testEveryCallThatTakesAPin_countsAWrongPin() throws {
        try startDaemon(["lockout": ["throttle_after": "10", "max_attempts": "10"]])
        let keyId = try registered("bob")
        XCTAssertError(try client.authenticate(user: "bob", pin: wrongPin), "WrongPin")
        XCTAssertError(try client.vault("ChangePin", ["user": "bob", "currentPin": wrongPin, "newPin": otherPin]), "WrongPin")
        XCTAssertError(try client.vault("BeginUnregister", ["user": "bob", "pin": wrongPin]), "WrongPin")
        let wipe = try client.vault("Wipe", ["user": "bob", "pin": wrongPin])
        XCTAssertError(wipe, "WrongPin")
        XCTAssertEqual(wipe.int("remainingAttempts"), 6)
        XCTAssertEqual(try client.credential(keyId: keyId).int("failedAttempts"), 4)
    }

    func testACallDuringTheWait_answersLockedOut_withoutCounting_evenWithTheRightPin() throws {
        try startDaemon(["lockout": ["throttle_base_seconds": "20", "throttle_max_seconds": "40"]])
        let keyId = try registered("carol")
        for _ in 0..<3 {
            XCTAssertError(try client.authenticate(user: "carol", pin: wrongPin), "WrongPin")
        }
        let before = try client.credential(keyId: keyId)
        XCTAssertEqual(before.int("failedAttempts"), 3)
        XCTAssertEqual(before.string("state"), "throttled")
        XCTAssertNotNil(before.string("lockedUntil"))

        for attempt in [wrongPin, pin] {
            let reply = try client.authenticate(user: "carol", pin: attempt)
            XCTAssertError(reply, "LockedOut")
            let wait = try XCTUnwrap(reply.int("retryAfterSeconds"))
            XCTAssertTrue((1...20).contains(wait), "retryAfterSeconds \(wait)")
        }
        XCTAssertError(try client.vault("ChangePin", ["user": "carol", "currentPin": pin, "newPin": otherPin]), "LockedOut")

        let after = try client.credential(keyId: keyId)
        XCTAssertEqual(after.int("failedAttempts"), 3)
        XCTAssertEqual(after.string("lockedUntil"), before.string("lockedUntil"))

        // `lockouts` counts credentials throttled by a wrong PIN, not refused calls.
        let counters = try XCTUnwrap(try client.vault("GetStats").object("counters"))
        XCTAssertEqual(counters["lockouts"] as? Int, 1)
        XCTAssertEqual(counters["authenticationsFailed"] as? Int, 3)
    }

    func testAfterTheWait_thePinIsCheckedAgain() throws {
        try startDaemon()
        let keyId = try registered("dave")
        for _ in 0..<3 {
            XCTAssertError(try client.authenticate(user: "dave", pin: wrongPin), "WrongPin")
        }
        var last: VarlinkResponse?
        let accepted = try eventually(timeout: 30) {
            let reply = try client.authenticate(user: "dave", pin: pin)
            last = reply
            return reply.error == nil
        }
        XCTAssertTrue(accepted, "still refused: \(String(describing: last))")
        XCTAssertEqual(try client.credential(keyId: keyId).int("failedAttempts"), 0)
    }

    func testMaxAttempts_blocksTheCredential_untilAnAdminUnblocksIt() throws {
        try startDaemon(["lockout": ["throttle_after": "3", "max_attempts": "3"]])
        let keyId = try registered("erin")
        XCTAssertEqual(try client.authenticate(user: "erin", pin: wrongPin).int("remainingAttempts"), 2)
        XCTAssertEqual(try client.authenticate(user: "erin", pin: wrongPin).int("remainingAttempts"), 1)
        XCTAssertError(try client.authenticate(user: "erin", pin: wrongPin), "CredentialBlocked")

        XCTAssertError(try client.authenticate(user: "erin", pin: pin), "CredentialBlocked")
        let blocked = try client.credential(keyId: keyId)
        XCTAssertEqual(blocked.string("state"), "blocked")
        XCTAssertEqual(blocked.int("remainingAttempts"), 0)
        XCTAssertEqual(blocked.int("failedAttempts"), 3)

        XCTAssertError(try client.vault("Unblock", ["ownerUid": 0, "user": "someone-else", "keyId": keyId]), "NoSuchCredential")
        XCTAssertError(try client.vault("Unblock", ["ownerUid": 4242, "user": "erin", "keyId": keyId]), "NoSuchCredential")
        let unblocked = try XCTUnwrap(try client.succeeding("Unblock", ["ownerUid": 0, "user": "erin", "keyId": keyId]).object("credential"))
        XCTAssertEqual(unblocked.string("state"), "active")
        XCTAssertEqual(unblocked.int("failedAttempts"), 0)
        XCTAssertEqual(unblocked.int("remainingAttempts"), 3)
        XCTAssertSuccess(try client.authenticate(user: "erin", pin: pin))
    }

    func testMaxAttempts_withOnMaxAttemptsWipe_deletesTheCredential() throws {
        try startDaemon(["lockout": ["throttle_after": "3", "max_attempts": "3", "on_max_attempts": "\"wipe\""]])
        let keyId = try registered("frank")
        try registered("frank-other")
        XCTAssertEqual(try client.succeeding("GetPolicy").object("policy")?.string("onMaxAttempts"), "wipe")
        XCTAssertError(try client.authenticate(user: "frank", pin: wrongPin), "WrongPin")
        XCTAssertError(try client.authenticate(user: "frank", pin: wrongPin), "WrongPin")
        XCTAssertError(try client.authenticate(user: "frank", pin: wrongPin), "CredentialWiped")

        XCTAssertFalse(try client.list().contains { $0.string("keyId") == keyId })
        XCTAssertEqual(try client.list(user: "frank-other").count, 1)
        XCTAssertError(try client.authenticate(user: "frank", pin: pin), "NoSuchCredential")
    }
}
