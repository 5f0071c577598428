import Foundation
import PinVaultTestKit
import XCTest

/// Several credentials per account (io.pinvault.Vault.varlink): AmbiguousCredential,
/// TooManyCredentials, Wipe, Reset, and the PIN policy on Register and ChangePin.
final class AccountTests: DaemonTestCase {
    /// Registers `count` credentials of `user`; returns their keyIds.
    @discardableResult
    private func registered(_ user: String, count: Int) throws -> [String] {
        try (0..<count).map { index in
            try XCTUnwrap(try client.register(user: user, pin: pin, label: "app \(index)").string("keyId"))
        }
    }

    func testAPinCall_withoutKeyId_onAUserWithSeveralCredentials_answersAmbiguousCredential() throws {
        try startDaemon()
        let keyIds = try registered("alice", count: 2)
        let reply = try client.authenticate(user: "alice", pin: pin)
        XCTAssertError(reply, "AmbiguousCredential")
        XCTAssertEqual(Set(reply.strings("keyIds") ?? []), Set(keyIds))
        XCTAssertTrue(try client.list().allSatisfy { $0.int("failedAttempts") == 0 })

        let chosen = try client.authenticate(user: "alice", pin: pin, keyId: keyIds[1])
        XCTAssertSuccess(chosen)
        XCTAssertEqual(chosen.string("keyId"), keyIds[1])
    }

    func testAKeyIdOfAnotherUser_answersNoSuchCredential() throws {
        try startDaemon()
        let keyId = try registered("alice", count: 1)[0]
        try registered("bob", count: 1)
        XCTAssertError(try client.authenticate(user: "bob", pin: pin, keyId: keyId), "NoSuchCredential")
        XCTAssertError(try client.authenticate(user: "nobody-registered", pin: pin), "NoSuchCredential")
    }

    func testRegister_pastMaxPerUser_answersTooManyCredentials_withTheLimit() throws {
        try startDaemon(["credentials": ["max_per_user": "2", "max_per_uid": "3"]])
        try registered("carol", count: 2)
        let third = try client.vault("Register", ["user": "carol", "pin": pin])
        XCTAssertError(third, "TooManyCredentials")
        XCTAssertEqual(third.int("limit"), 2)
        XCTAssertEqual(try client.list(user: "carol").count, 2)

        try registered("dave", count: 1)
        let perUid = try client.vault("Register", ["user": "erin", "pin": pin])
        XCTAssertError(perUid, "TooManyCredentials")
        XCTAssertEqual(perUid.int("limit"), 3)
    }

    func testRegister_withABadPin_answersEveryViolationInOrder_andStoresNothing() throws {
        try startDaemon()
        let cases: [(String, [String])] = [
            ("", ["empty"]),
            ("1111a", ["notDigits", "tooShort", "tooManyIdenticalDigits"]),
            ("1111", ["tooShort", "tooManyIdenticalDigits", "denyListed"]),
            ("123456", ["sequential", "denyListed"]),
        ]
        for (candidate, expected) in cases {
            let reply = try client.vault("Register", ["user": "frank", "pin": candidate])
            XCTAssertError(reply, "PinPolicyViolation")
            XCTAssertEqual(reply.strings("violations"), expected, candidate)
        }
        XCTAssertEqual(try client.list().count, 0)
    }

    func testChangePin_toABadOrTheSamePin_answersPinPolicyViolation_beforeCheckingTheCurrentPin() throws {
        try startDaemon()
        let keyId = try registered("gina", count: 1)[0]
        let same = try client.vault("ChangePin", ["user": "gina", "currentPin": pin, "newPin": pin])
        XCTAssertError(same, "PinPolicyViolation")
        XCTAssertEqual(same.strings("violations"), ["sameAsCurrent"])
        // A wrong current PIN with a bad new one: refused on the policy, nothing counted.
        let bad = try client.vault("ChangePin", ["user": "gina", "currentPin": "999999", "newPin": "1111"])
        XCTAssertError(bad, "PinPolicyViolation")
        XCTAssertEqual(bad.strings("violations"), ["tooShort", "tooManyIdenticalDigits", "denyListed"])
        XCTAssertEqual(try client.credential(keyId: keyId).int("failedAttempts"), 0)
        XCTAssertSuccess(try client.authenticate(user: "gina", pin: pin))
    }

    func testWipe_withThePin_deletesEveryCredentialOfTheUser_inOneCall() throws {
        try startDaemon()
        let keyIds = try registered("hank", count: 3)
        let kept = try registered("ivy", count: 1)

        let ambiguous = try client.vault("Wipe", ["user": "hank", "pin": pin])
        XCTAssertError(ambiguous, "AmbiguousCredential")
        XCTAssertEqual(Set(ambiguous.strings("keyIds") ?? []), Set(keyIds))

        let wrong = try client.vault("Wipe", ["user": "hank", "keyId": keyIds[0], "pin": "999999"])
        XCTAssertError(wrong, "WrongPin")
        XCTAssertEqual(try client.list(user: "hank").count, 3)

        let wiped = try client.succeeding("Wipe", ["user": "hank", "keyId": keyIds[2], "pin": pin])
        XCTAssertEqual(wiped.string("user"), "hank")
        XCTAssertEqual(Set(wiped.strings("deletedKeyIds") ?? []), Set(keyIds))
        XCTAssertEqual(try client.list(user: "hank").count, 0)
        XCTAssertEqual(try client.list().compactMap { $0.string("keyId") }, kept)
        XCTAssertError(try client.vault("Wipe", ["user": "hank", "pin": pin]), "NoSuchCredential")
    }

    func testWipe_byAnAdminWithoutPin_deletesTheAccount_evenOfAnotherOwnerUid() throws {
        try startDaemon()
        let keyIds = try registered("jack", count: 2)
        XCTAssertError(try client.vault("Wipe", ["user": "jack", "ownerUid": 4242]), "NoSuchCredential")
        XCTAssertEqual(try client.list(user: "jack").count, 2)
        let wiped = try client.succeeding("Wipe", ["user": "jack", "ownerUid": 0])
        XCTAssertEqual(Set(wiped.strings("deletedKeyIds") ?? []), Set(keyIds))
        XCTAssertEqual(try client.list().count, 0)
    }

    func testReset_requiresConfirmRESET_thenDeletesEverything() throws {
        try startDaemon()
        try registered("kate", count: 2)
        try registered("liam", count: 1)
        for confirm: Any in ["reset", "RESET ", "", 1] {
            let reply = try client.vault("Reset", ["confirm": confirm])
            XCTAssertError(reply, "org.varlink.service.InvalidParameter")
            XCTAssertEqual(reply.string("parameter"), "confirm")
        }
        XCTAssertError(try client.vault("Reset"), "org.varlink.service.InvalidParameter")
        XCTAssertEqual(try client.list().count, 3)

        let reset = try client.succeeding("Reset", ["confirm": "RESET"])
        XCTAssertEqual(reset.int("deletedCount"), 3)
        XCTAssertEqual(try client.list().count, 0)
    }
}
