import Foundation
import PinVaultTestKit
import XCTest

/// What survives a restart (SIGTERM, exit 0, start again on the same state
/// directory): credentials, failure counters, lockedUntil, a pending unregistration
/// with its expiry.
final class PersistenceTests: DaemonTestCase {
    func testARestart_keepsCredentialsCountersLockoutsAndPendingUnregistrations() throws {
        try startDaemon(["lockout": ["throttle_base_seconds": "60", "throttle_max_seconds": "120"]])
        let throttled = try XCTUnwrap(try client.register(user: "throttled", pin: pin).string("keyId"))
        for _ in 0..<3 {
            XCTAssertError(try client.authenticate(user: "throttled", pin: "999999"), "WrongPin")
        }
        let pending = try XCTUnwrap(try client.register(user: "pending", pin: pin).string("keyId"))
        let begun = try client.succeeding("BeginUnregister", ["user": "pending", "pin": pin])
        let token = try XCTUnwrap(begun.string("token"))
        let counted = try XCTUnwrap(try client.register(user: "counted", pin: pin, label: "one wrong").string("keyId"))
        XCTAssertError(try client.authenticate(user: "counted", pin: "999999"), "WrongPin")
        let before = try client.list()

        try restartDaemon()

        let after = try client.list()
        XCTAssertEqual(after.count, 3)
        let fields = ["user", "keyId", "label", "publicKey", "ownerUid", "createdAt", "failedAttempts", "remainingAttempts",
                      "state", "lockedUntil", "unregistrationExpiresAt"]
        for old in before {
            let new = try XCTUnwrap(after.first { $0.string("keyId") == old.string("keyId") })
            for field in fields {
                XCTAssertEqual("\(old[field] ?? "nil")", "\(new[field] ?? "nil")", "\(field) of \(old.string("user") ?? "")")
            }
        }
        XCTAssertEqual(try client.credential(keyId: throttled).string("state"), "throttled")
        XCTAssertEqual(try client.credential(keyId: pending).string("unregistrationExpiresAt"), begun.string("expiresAt"))
        XCTAssertEqual(try client.credential(keyId: counted).int("failedAttempts"), 1)

        XCTAssertError(try client.authenticate(user: "throttled", pin: pin), "LockedOut")
        let refused = try client.authenticate(user: "pending", pin: pin)
        XCTAssertError(refused, "UnregistrationPending")
        XCTAssertEqual(refused.string("expiresAt"), begun.string("expiresAt"))
        XCTAssertSuccess(try client.authenticate(user: "counted", pin: pin))
        XCTAssertSuccess(try client.vault("CommitUnregister", ["keyId": pending, "token": token]))
        XCTAssertEqual(try client.list().count, 2)
    }

    func testARestartWithATighterPolicy_flagsTheOldPinAsOutdated_butAcceptsIt() throws {
        try startDaemon()
        let credential = try client.register(user: "alice", pin: pin)
        XCTAssertEqual(try client.authenticate(user: "alice", pin: pin).bool("pinPolicyOutdated"), false)

        client = nil
        XCTAssertEqual(try daemon.stop(), 0, daemon.log)
        var sections = TestDaemon.configuration()
        sections["policy", default: [:]]["min_length"] = "8"
        try TestDaemon.render(sections).write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        try daemon.start()
        client = try daemon.connect()

        let reply = try client.authenticate(user: "alice", pin: pin)
        XCTAssertSuccess(reply)
        XCTAssertEqual(reply.bool("pinPolicyOutdated"), true)
        XCTAssertEqual(reply.string("publicKey"), credential.string("publicKey"))
        XCTAssertEqual(try client.succeeding("GetPolicy").object("policy")?.int("minLength"), 8)
    }
}
