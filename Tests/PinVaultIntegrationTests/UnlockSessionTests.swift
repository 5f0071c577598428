import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// Unlock, Sign and Lock over the real socket (io.pinvault.Vault.varlink, SECURITY.md
/// "Unlock sessions"): the PIN rules of Unlock, what a session lets through and to
/// whom, its ends, and the audit lines.
final class UnlockSessionTests: DaemonTestCase {
    private let challenge = Data("sign this".utf8)

    private func unlock(_ user: String = "alice", pin: String? = nil, ttl: Int = 60, bind: Bool? = nil,
                        on connection: VarlinkClient? = nil) throws -> VarlinkResponse {
        var parameters: [String: Any] = ["user": user, "pin": pin ?? self.pin, "ttlSeconds": ttl]
        if let bind { parameters["bindToConnection"] = bind }
        return try (connection ?? client).vault("Unlock", parameters)
    }

    private func sign(_ keyId: String, on connection: VarlinkClient? = nil) throws -> VarlinkResponse {
        try (connection ?? client).vault("Sign", ["keyId": keyId, "challenge": challenge.base64EncodedString()])
    }

    func testUnlock_thenSign_withoutAPin_givesASignatureAnotherLibraryAccepts() throws {
        try startDaemon()
        let credential = try client.register(user: "alice", pin: pin)
        let keyId = try XCTUnwrap(credential.string("keyId"))
        let unlocked = try unlock()
        XCTAssertSuccess(unlocked)
        XCTAssertEqual(unlocked.string("keyId"), keyId)
        XCTAssertEqual(unlocked.int("failedAttemptsCleared"), 0)
        XCTAssertNotNil(unlocked.string("unlockedUntil"))
        let signed = try sign(keyId)
        XCTAssertSuccess(signed)
        XCTAssertTrue(try IndependentEd25519.verify(
            publicKey: try XCTUnwrap(Data(base64Encoded: credential.string("publicKey") ?? "")),
            signature: try XCTUnwrap(Data(base64Encoded: signed.string("signature") ?? "")),
            message: challenge
        ))
        XCTAssertEqual(try client.credential(keyId: keyId).string("unlockedUntil"), unlocked.string("unlockedUntil"))
    }

    func testSign_withoutASession_isNotUnlocked_andMalformedValuesAreInvalidParameters() throws {
        try startDaemon()
        let keyId = try XCTUnwrap(try client.register(user: "alice", pin: pin).string("keyId"))
        XCTAssertError(try sign(keyId), "NotUnlocked")
        XCTAssertNil(try client.credential(keyId: keyId)["unlockedUntil"])
        XCTAssertError(try client.vault("Sign", ["keyId": keyId, "challenge": ""]), "org.varlink.service.InvalidParameter")
        XCTAssertError(try unlock(ttl: 0), "org.varlink.service.InvalidParameter")
        XCTAssertError(try client.vault("Unlock", ["user": "alice", "pin": pin]), "org.varlink.service.InvalidParameter")
    }

    func testAWrongPinInUnlock_countsLikeAnyOther_andTheRightOneSaysWhatItCleared() throws {
        try startDaemon()
        let keyId = try XCTUnwrap(try client.register(user: "alice", pin: pin).string("keyId"))
        let wrong = try unlock(pin: otherPin)
        XCTAssertError(wrong, "WrongPin")
        XCTAssertEqual(wrong.int("remainingAttempts"), 4)
        XCTAssertEqual(try client.credential(keyId: keyId).int("failedAttempts"), 1)
        XCTAssertError(try sign(keyId), "NotUnlocked")
        let right = try unlock()
        XCTAssertSuccess(right)
        XCTAssertEqual(right.int("failedAttemptsCleared"), 1)
        XCTAssertEqual(try client.credential(keyId: keyId).int("failedAttempts"), 0)
    }

    func testLock_endsTheSession_andTheAuditCountsItsSignatures() throws {
        try startDaemon()
        let keyId = try XCTUnwrap(try client.register(user: "alice", pin: pin).string("keyId"))
        XCTAssertSuccess(try unlock())
        for _ in 0..<3 { XCTAssertSuccess(try sign(keyId)) }
        let locked = try client.succeeding("Lock", ["keyId": keyId])
        XCTAssertEqual(locked["lockedKeyIds"] as? [String], [keyId])
        XCTAssertError(try sign(keyId), "NotUnlocked")
        XCTAssertEqual(try client.succeeding("Lock")["lockedKeyIds"] as? [String], [])
        XCTAssertTrue(eventually(timeout: 30) { daemon.log.contains("event=session.lock") }, daemon.log)
        let line = daemon.log.split(separator: "\n").first { $0.contains("event=session.lock") } ?? ""
        XCTAssertTrue(line.contains("signatures=3"), String(line))
        XCTAssertTrue(daemon.log.contains("event=session.unlock"), daemon.log)
        XCTAssertEqual(daemon.log.components(separatedBy: "Sign").count, 1, "a line per signature")
    }

    func testASession_expiresAfterItsTTL_andTheSweepAuditsIt() throws {
        try startDaemon()
        let keyId = try XCTUnwrap(try client.register(user: "alice", pin: pin).string("keyId"))
        // A signature inside the TTL: when this machine took longer than the TTL between
        // the Unlock and the Sign, the refusal proves nothing, and it is tried again with
        // a TTL twice as long. Past the TTL (slept after the Unlock answered), it is refused.
        var ttl = 1
        while true {
            let unlocked = Date()
            XCTAssertSuccess(try unlock(ttl: ttl))
            let signed = try sign(keyId)
            if signed.error == nil { break }
            guard Date().timeIntervalSince(unlocked) >= Double(ttl), ttl < 16 else {
                return XCTFail("refused within its TTL of \(ttl) s: \(signed)")
            }
            ttl *= 2
        }
        usleep(useconds_t(ttl) * 1_000_000 + 100_000)
        XCTAssertError(try sign(keyId), "NotUnlocked")
        XCTAssertTrue(eventually(timeout: 30) { daemon.log.contains("event=session.expired") }, daemon.log)
        XCTAssertTrue(daemon.log.contains("signatures=1"), daemon.log)
    }

    func testABoundSession_endsWhenItsConnectionCloses() throws {
        try startDaemon()
        let keyId = try XCTUnwrap(try client.register(user: "alice", pin: pin).string("keyId"))
        let holder = try daemon.connect()
        XCTAssertSuccess(try unlock(bind: true, on: holder))
        XCTAssertSuccess(try sign(keyId))
        holder.close()
        XCTAssertTrue(try eventually(timeout: 30) { try sign(keyId).error != nil }, "the session outlived its connection")
        XCTAssertError(try sign(keyId), "NotUnlocked")
        XCTAssertTrue(eventually(timeout: 30) { daemon.log.contains("reason=connection.closed") }, daemon.log)
    }

    func testChangePin_endsTheSession() throws {
        try startDaemon()
        let keyId = try XCTUnwrap(try client.register(user: "alice", pin: pin).string("keyId"))
        XCTAssertSuccess(try unlock())
        XCTAssertSuccess(try client.vault("ChangePin", ["user": "alice", "currentPin": pin, "newPin": otherPin]))
        XCTAssertError(try sign(keyId), "NotUnlocked")
    }

    func testMaxTtlZero_turnsUnlockOff() throws {
        try startDaemon(["sessions": ["max_ttl_seconds": "0"]])
        try client.register(user: "alice", pin: pin)
        XCTAssertError(try unlock(), "org.varlink.service.PermissionDenied")
    }

    func testAnotherUid_seesAndSignsNothing() throws {
        guard getuid() == 0 else {
            try RootOnlySuites.skip(self, "needs root to run a client as another uid (setpriv)") { XCTSkip($0) }
        }
        try startDaemon()
        let keyId = try XCTUnwrap(try client.register(user: "alice", pin: pin).string("keyId"))
        XCTAssertSuccess(try unlock())
        let foreign = ForeignUidClient(socketPath: daemon.socketPath)
        let replies = try foreign.call([
            (VarlinkClient.vault + ".Sign", ["keyId": keyId, "challenge": challenge.base64EncodedString()]),
            (VarlinkClient.vault + ".List", [:]),
            (VarlinkClient.vault + ".Lock", [:]),
        ])
        XCTAssertEqual(replies.count, 3)
        XCTAssertEqual(replies[0].error, VarlinkClient.vault + ".NotUnlocked")
        XCTAssertEqual((replies[1]["credentials"] as? [Any])?.count, 0)
        XCTAssertEqual(replies[2]["lockedKeyIds"] as? [String], [])
        XCTAssertSuccess(try sign(keyId))
    }

    func testTheAgentSocket_isThere_withTheSocketMode() throws {
        try startDaemon()
        var info = stat()
        XCTAssertEqual(lstat(daemon.sshAgentSocketPath, &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFSOCK)
        XCTAssertEqual(info.st_mode & 0o777, 0o666)
        client = nil
        XCTAssertEqual(try daemon.stop(), 0, daemon.log)
        XCTAssertNotEqual(lstat(daemon.sshAgentSocketPath, &info), 0, "the agent socket was left behind")
    }
}
