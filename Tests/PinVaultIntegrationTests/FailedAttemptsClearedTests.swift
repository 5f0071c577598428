import Foundation
import PinVaultTestKit
import XCTest

/// The lockout said honestly (SECURITY.md, "What the lockout promises"): a right PIN
/// clears the count, so every PIN call that succeeds tells how many wrong PINs it
/// cleared (`failedAttemptsCleared`), and an app can say "2 wrong PINs were tried since
/// your last sign-in", as `login` does.
final class FailedAttemptsClearedTests: DaemonTestCase {
    private let wrongPin = "999999"

    private func wrongPins(_ count: Int, user: String = "alice") throws {
        for _ in 0..<count {
            XCTAssertError(try client.authenticate(user: user, pin: wrongPin), "WrongPin")
        }
    }

    func testAuthenticate_tellsTheWrongPinsItCleared_thenZero() throws {
        try startDaemon()
        try client.register(user: "alice", pin: pin)
        XCTAssertEqual(try client.authenticate(user: "alice", pin: pin).int("failedAttemptsCleared"), 0)
        try wrongPins(2)
        let reply = try client.authenticate(user: "alice", pin: pin)
        XCTAssertSuccess(reply)
        XCTAssertEqual(reply.int("failedAttemptsCleared"), 2, reply.description)
        XCTAssertEqual(try client.authenticate(user: "alice", pin: pin).int("failedAttemptsCleared"), 0)
    }

    func testChangePinBeginUnregisterAndWipe_tellTheWrongPinsTheyCleared() throws {
        try startDaemon()
        try client.register(user: "alice", pin: pin)
        try wrongPins(1)
        let changed = try client.succeeding("ChangePin", ["user": "alice", "currentPin": pin, "newPin": otherPin])
        XCTAssertEqual(changed.int("failedAttemptsCleared"), 1, changed.description)

        try wrongPins(2)
        let begun = try client.succeeding("BeginUnregister", ["user": "alice", "pin": otherPin])
        XCTAssertEqual(begun.int("failedAttemptsCleared"), 2, begun.description)
        XCTAssertSuccess(try client.vault("AbortUnregister", ["keyId": begun.string("keyId") ?? "", "token": begun.string("token") ?? ""]))

        try wrongPins(2)
        let wiped = try client.succeeding("Wipe", ["user": "alice", "pin": otherPin])
        XCTAssertEqual(wiped.int("failedAttemptsCleared"), 2, wiped.description)
    }

    func testAnAdminWithoutAPin_clearsNothing_andSaysZero() throws {
        try startDaemon()  // the test runs as root: an admin
        try client.register(user: "alice", pin: pin)
        try wrongPins(1)
        let begun = try client.succeeding("BeginUnregister", ["user": "alice"])
        XCTAssertEqual(begun.int("failedAttemptsCleared"), 0, begun.description)
        XCTAssertEqual(try client.list().first?.int("failedAttempts"), 1, "a PIN-less admin call clears nothing")
    }
}
