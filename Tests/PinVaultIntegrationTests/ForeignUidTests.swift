import Foundation
import PinVaultTestKit
import XCTest

/// Who may do what (SECURITY.md, "Another local user"), with a real second peer: a client running as uid
/// 65534 through `setpriv`. It sees none of root's credentials (NoSuchCredential,
/// never PermissionDenied), keeps its own, and is refused the admin's powers.
final class ForeignUidTests: DaemonTestCase {
    private var nobody: ForeignUidClient!
    private let uid = Int(ForeignUidClient.nobody)

    override func setUpWithError() throws {
        try startDaemon()
        nobody = ForeignUidClient(socketPath: daemon.socketPath)
    }

    private func vault(_ method: String, _ parameters: [String: Any] = [:]) throws -> VarlinkResponse {
        try nobody.call(VarlinkClient.vault + "." + method, parameters)
    }

    func testAnotherUid_seesNoneOfRootsCredentials_andGetsNoSuchCredentialForThem() throws {
        let keyId = try XCTUnwrap(try client.register(user: "alice", pin: pin).string("keyId"))
        let token = String(repeating: "A", count: 43)
        let replies = try nobody.call([
            ("io.pinvault.Vault.List", [:]),
            ("io.pinvault.Vault.List", ["user": "alice"]),
            ("io.pinvault.Vault.Authenticate", ["user": "alice", "pin": pin, "challenge": "AA=="]),
            ("io.pinvault.Vault.Authenticate", ["user": "alice", "keyId": keyId, "pin": pin, "challenge": "AA=="]),
            ("io.pinvault.Vault.ChangePin", ["user": "alice", "currentPin": pin, "newPin": otherPin]),
            ("io.pinvault.Vault.BeginUnregister", ["user": "alice", "pin": pin]),
            ("io.pinvault.Vault.CommitUnregister", ["keyId": keyId, "token": token]),
            ("io.pinvault.Vault.AbortUnregister", ["keyId": keyId, "token": token]),
            ("io.pinvault.Vault.Wipe", ["user": "alice", "pin": pin]),
        ])
        XCTAssertEqual(replies.count, 9)
        XCTAssertSuccess(replies[0])
        XCTAssertEqual((replies[0]["credentials"] as? [Any])?.count, 0, replies[0].description)
        XCTAssertEqual((replies[1]["credentials"] as? [Any])?.count, 0, replies[1].description)
        for reply in replies.dropFirst(2) {
            XCTAssertError(reply, "NoSuchCredential")
        }
        let untouched = try client.credential(keyId: keyId)
        XCTAssertEqual(untouched.int("failedAttempts"), 0)
        XCTAssertEqual(untouched.string("state"), "active")
        XCTAssertSuccess(try client.authenticate(user: "alice", pin: pin))
    }

    func testAnotherUid_registersItsOwnCredential_whichRootSeesOnlyThroughOwnerUid() throws {
        let replies = try nobody.call([
            ("io.pinvault.Vault.Register", ["user": "alice", "pin": pin, "label": "nobody's"]),
            ("io.pinvault.Vault.Authenticate", ["user": "alice", "pin": pin, "challenge": "AA=="]),
            ("io.pinvault.Vault.List", [:]),
        ])
        XCTAssertSuccess(replies[0])
        let credential = try XCTUnwrap(replies[0].object("credential"))
        XCTAssertEqual(credential.int("ownerUid"), uid)
        XCTAssertSuccess(replies[1])
        XCTAssertEqual(replies[1].string("keyId"), credential.string("keyId"))
        XCTAssertEqual((replies[2]["credentials"] as? [[String: Any]])?.first?.string("keyId"), credential.string("keyId"))

        XCTAssertEqual(try client.list().count, 0)
        XCTAssertError(try client.authenticate(user: "alice", pin: pin), "NoSuchCredential")
        let seen = try client.list(ownerUid: uid)
        XCTAssertEqual(seen.count, 1)
        XCTAssertEqual(seen.first?.string("keyId"), credential.string("keyId"))
        XCTAssertEqual(seen.first?.int("ownerUid"), uid)
    }

    func testAnotherUid_isRefusedTheAdminPowers_withPermissionDenied() throws {
        let registered = try nobody.call(VarlinkClient.vault + ".Register", ["user": "bob", "pin": pin])
        let keyId = try XCTUnwrap(registered.object("credential")?.string("keyId"), registered.description)
        let replies = try nobody.call([
            ("io.pinvault.Vault.List", ["ownerUid": 0]),
            ("io.pinvault.Vault.List", ["ownerUid": uid]),
            ("io.pinvault.Vault.Unblock", ["ownerUid": uid, "user": "bob", "keyId": keyId]),
            ("io.pinvault.Vault.Reset", ["confirm": "RESET"]),
            ("io.pinvault.Vault.Wipe", ["user": "bob"]),
            ("io.pinvault.Vault.Wipe", ["user": "bob", "pin": pin, "ownerUid": uid]),
            ("io.pinvault.Vault.BeginUnregister", ["user": "bob"]),
            ("io.pinvault.Vault.GetStats", [:]),
        ])
        XCTAssertEqual(replies.count, 8)
        for reply in replies {
            XCTAssertError(reply, "org.varlink.service.PermissionDenied")
        }
        XCTAssertEqual(try client.list(ownerUid: uid).count, 1)
        XCTAssertEqual(try client.list(ownerUid: uid).first?.string("state"), "active")
    }

    /// The PAM module's case: run as root, it signs in a user with that user's own
    /// credential and PIN by passing ownerUid; the count is that credential's.
    func testAdmin_withOwnerUid_authenticatesAnotherUidsCredential_andItsWrongPinsCountThere() throws {
        let registered = try nobody.call(VarlinkClient.vault + ".Register", ["user": "alice", "pin": pin, "label": "login"])
        let credential = try XCTUnwrap(registered.object("credential"), registered.description)
        let keyId = try XCTUnwrap(credential.string("keyId"))
        let challenge = Data("pam_pinvault v1\0login\0alice\0".utf8) + Data(repeating: 7, count: 32)

        let wrong = try client.vault("Authenticate", [
            "user": "alice", "pin": otherPin, "challenge": challenge.base64EncodedString(), "ownerUid": uid,
        ])
        XCTAssertError(wrong, "WrongPin")
        XCTAssertEqual(try client.list(ownerUid: uid).first?.int("failedAttempts"), 1)

        let reply = try client.vault("Authenticate", [
            "user": "alice", "keyId": keyId, "pin": pin, "challenge": challenge.base64EncodedString(), "ownerUid": uid,
        ])
        XCTAssertSuccess(reply)
        XCTAssertEqual(reply.string("keyId"), keyId)
        let publicKey = try XCTUnwrap(Data(base64Encoded: reply.string("publicKey") ?? ""))
        let signature = try XCTUnwrap(Data(base64Encoded: reply.string("signature") ?? ""))
        XCTAssertTrue(try IndependentEd25519.verify(publicKey: publicKey, signature: signature, message: challenge))
        XCTAssertEqual(try client.list(ownerUid: uid).first?.int("failedAttempts"), 0)
        // Without ownerUid root has no such credential of its own.
        XCTAssertError(try client.authenticate(user: "alice", pin: pin), "NoSuchCredential")
        XCTAssertTrue(daemon.log.contains("ownerUid=\(uid)"), "the audit line names the owner:\n\(daemon.log)")
    }

    func testAnotherUid_passingOwnerUidToAuthenticate_isPermissionDenied_andCountsNothing() throws {
        let replies = try nobody.call([
            ("io.pinvault.Vault.Register", ["user": "bob", "pin": pin]),
            ("io.pinvault.Vault.Authenticate", ["user": "bob", "pin": otherPin, "challenge": "AA==", "ownerUid": uid]),
            ("io.pinvault.Vault.Authenticate", ["user": "bob", "pin": pin, "challenge": "AA==", "ownerUid": 0]),
            ("io.pinvault.Vault.List", [:]),
        ])
        XCTAssertSuccess(replies[0])
        XCTAssertError(replies[1], "org.varlink.service.PermissionDenied")
        XCTAssertError(replies[2], "org.varlink.service.PermissionDenied")
        let listed = try XCTUnwrap((replies[3]["credentials"] as? [[String: Any]])?.first, replies[3].description)
        XCTAssertEqual(listed.int("failedAttempts"), 0)
    }

    func testAnotherUid_canWipeItsOwnAccountWithThePin_andRootCanResetEveryone() throws {
        try client.register(user: "carol", pin: pin)
        _ = try nobody.call([
            ("io.pinvault.Vault.Register", ["user": "dave", "pin": pin]),
            ("io.pinvault.Vault.Register", ["user": "erin", "pin": pin]),
        ])
        let wiped = try vault("Wipe", ["user": "dave", "pin": pin])
        XCTAssertSuccess(wiped)
        XCTAssertEqual(wiped.strings("deletedKeyIds")?.count, 1)
        XCTAssertEqual(try client.list(ownerUid: uid).map { $0.string("user") }, ["erin"])

        XCTAssertEqual(try client.succeeding("Reset", ["confirm": "RESET"]).int("deletedCount"), 2)
        XCTAssertEqual((try vault("List")["credentials"] as? [Any])?.count, 0)
    }
}
