import Foundation
import PinVaultTestKit
import XCTest

/// The bounded KDF pool (docs/OPERATIONS.md): past `kdf.max_parallel`, `queue_max` and
/// `queue_per_uid`, a call answers `Busy` at once, and that refusal counts nothing.
final class BusyTests: DaemonTestCase {
    /// One KDF at a time, one waiting, one per uid; real Argon2id costs so calls overlap.
    override func setUpWithError() throws {
        try startDaemon([
            "kdf": ["opslimit": "2", "memlimit_mib": "16", "max_parallel": "1", "queue_max": "1", "queue_per_uid": "1"],
            "lockout": ["throttle_after": "50", "max_attempts": "100"],
        ], removing: ["kdf": ["memlimit_kib"]])
    }

    /// Sends Authenticate with `pin` on `count` connections at once; returns the replies.
    private func concurrentAuthentications(_ count: Int, pin attempt: String) throws -> [VarlinkResponse] {
        let clients = try (0..<count).map { _ in try daemon.connect() }
        for connection in clients {
            try connection.send("io.pinvault.Vault.Authenticate", [
                "user": "alice", "pin": attempt, "challenge": Data("busy".utf8).base64EncodedString(),
            ])
        }
        return try clients.map { try $0.receive() }
    }

    func testConcurrentAuthentications_pastThePool_answerBusy_withARetryHint() throws {
        try client.register(user: "alice", pin: pin)
        let replies = try concurrentAuthentications(6, pin: pin)
        let busy = replies.filter { $0.error == "io.pinvault.Vault.Busy" }
        let succeeded = replies.filter { $0.error == nil }
        XCTAssertEqual(busy.count + succeeded.count, replies.count, replies.map(\.description).joined(separator: "\n"))
        XCTAssertGreaterThanOrEqual(busy.count, 1, "no call was refused")
        XCTAssertGreaterThanOrEqual(succeeded.count, 1, "every call was refused")
        for reply in busy {
            XCTAssertGreaterThan(reply.int("retryAfterMilliseconds") ?? 0, 0, reply.description)
        }
    }

    func testBusy_doesNotCountAnAttempt() throws {
        let keyId = try XCTUnwrap(try client.register(user: "alice", pin: pin).string("keyId"))
        let replies = try concurrentAuthentications(6, pin: "999999")
        let busy = replies.filter { $0.error == "io.pinvault.Vault.Busy" }.count
        let wrong = replies.filter { $0.error == "io.pinvault.Vault.WrongPin" }.count
        XCTAssertEqual(busy + wrong, replies.count, replies.map(\.description).joined(separator: "\n"))
        XCTAssertGreaterThanOrEqual(busy, 1, "no call was refused")
        XCTAssertEqual(try client.credential(keyId: keyId).int("failedAttempts"), wrong)
    }
}
