import Foundation
import PinVaultTestKit
import XCTest

/// A wrong C_Login is the daemon's count, which the caller cannot touch: the token's
/// flags follow it, and a throttled or blocked credential answers CKR_PIN_LOCKED.
final class PinCounterTests: PKCS11TestCase {
    /// C_Login through pkcs11-tool with `pin` (the throwaway test PINs on argv: it takes them nowhere else).
    private func login(_ token: String, _ pin: String) throws -> (status: Int32, output: String) {
        try pkcs11Tool(["--token-label", token, "--login", "--pin", pin, "-O"])
    }

    /// The token flags pkcs11-tool -L prints for `token`.
    private func flags(_ token: String) throws -> String {
        let slots = try pkcs11Tool(["-L"])
        XCTAssertEqual(slots.status, 0, slots.output)
        let lines = slots.output.components(separatedBy: "\n")
        guard let at = lines.firstIndex(of: "  token label        : \(token)"),
              let line = lines[at...].first(where: { $0.hasPrefix("  token flags        : ") }) else {
            XCTFail("no token \(token) in:\n\(slots.output)")
            return ""
        }
        return String(line.dropFirst("  token flags        : ".count))
    }

    func testWrongPins_areCountedByTheDaemon_theFlagsFollow_andABlockedTokenAnswersPinLocked() throws {
        // No throttle before the block: every wrong PIN is checked and counted.
        try startDaemon(["lockout": ["throttle_after": "4", "max_attempts": "4"]])
        let alice = try register("alice")
        XCTAssertFalse(try flags("alice").contains("count low"))

        let first = try login("alice", wrongPin)
        XCTAssertNotEqual(first.status, 0)
        XCTAssertTrue(first.output.contains("CKR_PIN_INCORRECT"), first.output)
        XCTAssertEqual(try listed(alice.keyId)["failedAttempts"] as? Int, 1, "the daemon counted the wrong C_Login")
        XCTAssertTrue(try flags("alice").contains("user PIN count low"))
        XCTAssertFalse(try flags("alice").contains("final try"))

        for _ in 0..<2 { XCTAssertTrue(try login("alice", wrongPin).output.contains("CKR_PIN_INCORRECT")) }
        XCTAssertEqual(try listed(alice.keyId)["remainingAttempts"] as? Int, 1)
        let finalTry = try flags("alice")
        XCTAssertTrue(finalTry.contains("final user PIN try"), finalTry)

        let last = try login("alice", wrongPin)
        XCTAssertNotEqual(last.status, 0)
        XCTAssertEqual(try listed(alice.keyId)["state"] as? String, "blocked")
        let blocked = try flags("alice")
        XCTAssertTrue(blocked.contains("user PIN locked"), blocked)

        // Blocked: even the right PIN answers CKR_PIN_LOCKED, and nothing more is counted.
        let right = try login("alice", pin)
        XCTAssertNotEqual(right.status, 0)
        XCTAssertTrue(right.output.contains("CKR_PIN_LOCKED"), right.output)
        XCTAssertEqual(try listed(alice.keyId)["failedAttempts"] as? Int, 4)
    }

    func testThrottledToken_answersPinLocked_withoutCounting_andARightPinLaterClearsTheCount() throws {
        // Throttled for an hour after two wrong PINs: the wait cannot end during the test.
        try startDaemon(["lockout": ["throttle_after": "2", "throttle_base_seconds": "3600", "throttle_max_seconds": "3600",
                                     "max_attempts": "10"]])
        let alice = try register("alice")
        let bob = try register("bob")
        for _ in 0..<2 { XCTAssertTrue(try login("alice", wrongPin).output.contains("CKR_PIN_INCORRECT")) }
        XCTAssertEqual(try listed(alice.keyId)["state"] as? String, "throttled")
        let throttled = try flags("alice")
        XCTAssertTrue(throttled.contains("user PIN locked"), throttled)

        let waiting = try login("alice", pin)
        XCTAssertNotEqual(waiting.status, 0)
        XCTAssertTrue(waiting.output.contains("CKR_PIN_LOCKED"), waiting.output)
        XCTAssertEqual(try listed(alice.keyId)["failedAttempts"] as? Int, 2, "a PIN during the wait is not counted")

        // Another credential's token is another count.
        XCTAssertFalse(try flags("bob").contains("count low"))
        let other = try login("bob", pin)
        XCTAssertEqual(other.status, 0, other.output)
        XCTAssertEqual(try listed(bob.keyId)["failedAttempts"] as? Int, 0)
    }

    /// PyKCS11 hands an empty PIN over as no buffer at all (NULL): refused in the module
    /// (no protected authentication path), never sent, never counted.
    func testEmptyPin_isRefusedInTheModule_andCostsNothing() throws {
        try startDaemon()
        let alice = try register("alice")
        let result = try run("/usr/bin/python3", ["-c", #"""
            import sys, PyKCS11
            lib = PyKCS11.PyKCS11Lib(); lib.load(sys.argv[1])
            session = lib.openSession(lib.getSlotList(tokenPresent=True)[0])
            try:
                session.login("")
                print("CKR_OK")
            except PyKCS11.PyKCS11Error as error:
                print(PyKCS11.CKR[error.value])
            """#, modules.pkcs11Module])
        XCTAssertEqual(result.output.trimmingCharacters(in: .whitespacesAndNewlines), "CKR_ARGUMENTS_BAD")
        XCTAssertEqual(try listed(alice.keyId)["failedAttempts"] as? Int, 0)
    }
}
