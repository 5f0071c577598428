import Foundation
import PinVaultTestKit
import XCTest

/// Two-phase unregistration (io.pinvault.Vault.varlink): BeginUnregister, CommitUnregister,
/// AbortUnregister, the token, UnregistrationPending and expiry.
final class UnregistrationTests: DaemonTestCase {
    /// Registers `user`, begins its unregistration with the PIN; returns keyId, token, expiresAt.
    private func begin(_ user: String) throws -> (keyId: String, token: String, expiresAt: String) {
        let keyId = try XCTUnwrap(try client.register(user: user, pin: pin).string("keyId"))
        let reply = try client.succeeding("BeginUnregister", ["user": user, "pin": pin])
        XCTAssertEqual(reply.string("keyId"), keyId)
        return (keyId, try XCTUnwrap(reply.string("token")), try XCTUnwrap(reply.string("expiresAt")))
    }

    private func randomToken() -> String {
        Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    func testBeginUnregister_makesTheCredentialPending_andCommitDeletesIt_once() throws {
        try startDaemon()
        let (keyId, token, expiresAt) = try begin("alice")
        XCTAssertEqual(token.count, 43)
        XCTAssertNil(token.rangeOfCharacter(from: CharacterSet(charactersIn: "+/=")), token)
        XCTAssertTrue(expiresAt.hasSuffix("Z"), expiresAt)

        let listed = try client.credential(keyId: keyId)
        XCTAssertEqual(listed.string("state"), "pendingUnregistration")
        XCTAssertEqual(listed.string("unregistrationExpiresAt"), expiresAt)

        let auth = try client.authenticate(user: "alice", pin: pin)
        XCTAssertError(auth, "UnregistrationPending")
        XCTAssertEqual(auth.string("expiresAt"), expiresAt)
        XCTAssertError(try client.vault("ChangePin", ["user": "alice", "currentPin": pin, "newPin": otherPin]), "UnregistrationPending")
        XCTAssertError(try client.vault("BeginUnregister", ["user": "alice", "pin": pin]), "UnregistrationPending")
        XCTAssertEqual(try client.credential(keyId: keyId).int("failedAttempts"), 0)

        XCTAssertError(try client.vault("CommitUnregister", ["keyId": keyId, "token": randomToken()]), "InvalidToken")
        XCTAssertSuccess(try client.vault("CommitUnregister", ["keyId": keyId, "token": token]))
        XCTAssertEqual(try client.list().count, 0)
        XCTAssertError(try client.vault("CommitUnregister", ["keyId": keyId, "token": token]), "NoSuchCredential")
        XCTAssertError(try client.authenticate(user: "alice", pin: pin), "NoSuchCredential")
    }

    func testAbortUnregister_makesTheCredentialActiveAgain_andTheTokenWorksOnlyOnce() throws {
        try startDaemon()
        let (keyId, token, _) = try begin("bob")
        XCTAssertError(try client.vault("AbortUnregister", ["keyId": keyId, "token": randomToken()]), "InvalidToken")
        XCTAssertSuccess(try client.vault("AbortUnregister", ["keyId": keyId, "token": token]))

        let listed = try client.credential(keyId: keyId)
        XCTAssertEqual(listed.string("state"), "active")
        XCTAssertNil(listed["unregistrationExpiresAt"] as? String)
        XCTAssertSuccess(try client.authenticate(user: "bob", pin: pin))
        XCTAssertError(try client.vault("AbortUnregister", ["keyId": keyId, "token": token]), "InvalidToken")
        XCTAssertError(try client.vault("CommitUnregister", ["keyId": keyId, "token": token]), "InvalidToken")
        XCTAssertEqual(try client.list().count, 1)
    }

    func testAPendingUnregistration_expires_andTheCredentialIsActiveAgain() throws {
        try startDaemon(["unregister": ["expiry_seconds": "1"]])
        let (keyId, token, _) = try begin("carol")
        XCTAssertError(try client.authenticate(user: "carol", pin: pin), "UnregistrationPending")
        var last: VarlinkResponse?
        let active = try eventually(timeout: 30) {
            let reply = try client.authenticate(user: "carol", pin: pin)
            last = reply
            return reply.error == nil
        }
        XCTAssertTrue(active, "still refused: \(String(describing: last))")
        XCTAssertEqual(try client.credential(keyId: keyId).string("state"), "active")
        XCTAssertError(try client.vault("CommitUnregister", ["keyId": keyId, "token": token]), "InvalidToken")
        XCTAssertEqual(try client.list().count, 1)
    }

    func testBeginUnregister_withAWrongPin_answersWrongPin_andNothingIsPending() throws {
        try startDaemon()
        let keyId = try XCTUnwrap(try client.register(user: "dave", pin: pin).string("keyId"))
        XCTAssertError(try client.vault("BeginUnregister", ["user": "dave", "pin": "999999"]), "WrongPin")
        let listed = try client.credential(keyId: keyId)
        XCTAssertEqual(listed.string("state"), "active")
        XCTAssertEqual(listed.int("failedAttempts"), 1)
    }

    func testBeginUnregister_byAnAdminWithoutPin_works() throws {
        try startDaemon()
        let keyId = try XCTUnwrap(try client.register(user: "erin", pin: pin).string("keyId"))
        let reply = try client.succeeding("BeginUnregister", ["user": "erin"])
        XCTAssertEqual(reply.string("keyId"), keyId)
        XCTAssertSuccess(try client.vault("CommitUnregister", ["keyId": keyId, "token": try XCTUnwrap(reply.string("token"))]))
        XCTAssertEqual(try client.list().count, 0)
    }

    func testCommitUnregister_forAnUnknownKeyId_answersNoSuchCredential() throws {
        try startDaemon()
        XCTAssertError(try client.vault("CommitUnregister", ["keyId": String(repeating: "ab", count: 16), "token": randomToken()]), "NoSuchCredential")
    }
}
