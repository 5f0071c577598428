import Foundation
import PinVaultTestKit
import XCTest

/// The everyday methods (Register, Authenticate, ChangePin, List, GetPolicy,
/// CheckPin, GetStats, GetInfo) against a real pinvaultd over its real socket.
final class LifecycleTests: DaemonTestCase {
    override func setUpWithError() throws {
        try startDaemon()
    }

    func testRegisterThenAuthenticate_signsExactlyTheChallengeBytes_asAnIndependentVerifierConfirms() throws {
        let credential = try client.register(user: "alice@example.org", pin: pin, label: "laptop")
        XCTAssertEqual(credential.string("user"), "alice@example.org")
        XCTAssertEqual(credential.string("label"), "laptop")
        XCTAssertEqual(credential.string("state"), "active")
        XCTAssertEqual(credential.int("ownerUid"), Int(getuid()))
        XCTAssertEqual(credential.int("failedAttempts"), 0)
        XCTAssertEqual(credential.int("remainingAttempts"), 5)
        let publicKey = try XCTUnwrap(Data(base64Encoded: credential.string("publicKey") ?? ""))
        XCTAssertEqual(publicKey.count, 32)

        // Every byte value, NUL included: the signature must cover these bytes and no others.
        let challenge = Data((0..<1024).map { UInt8(truncatingIfNeeded: $0 * 7) })
        let auth = try client.authenticate(user: "alice@example.org", pin: pin, challenge: challenge)
        XCTAssertSuccess(auth)
        XCTAssertEqual(auth.string("keyId"), credential.string("keyId"))
        XCTAssertEqual(auth.string("publicKey"), credential.string("publicKey"))
        XCTAssertEqual(auth.bool("pinPolicyOutdated"), false)
        let signature = try XCTUnwrap(Data(base64Encoded: auth.string("signature") ?? ""))
        XCTAssertEqual(signature.count, 64)

        XCTAssertTrue(try IndependentEd25519.verify(publicKey: publicKey, signature: signature, message: challenge))
        XCTAssertFalse(try IndependentEd25519.verify(publicKey: publicKey, signature: signature, message: challenge.dropLast()))
    }

    func testRegister_keyIdIsTheFirst16BytesOfBLAKE2bOfThePublicKey_inLowercaseHex() throws {
        let credential = try client.register(user: "keyid", pin: pin)
        let publicKey = try XCTUnwrap(credential.string("publicKey"))
        let python = try Subprocess.run("/usr/bin/python3", [
            "-c", "import base64, hashlib, sys; print(hashlib.blake2b(base64.b64decode(sys.argv[1]), digest_size=32).hexdigest()[:32])",
            publicKey,
        ])
        XCTAssertEqual(python.status, 0, python.description)
        XCTAssertEqual(credential.string("keyId"), python.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    func testAuthenticate_recordsLastUsedAt() throws {
        let credential = try client.register(user: "erin", pin: pin)
        XCTAssertNil(credential["lastUsedAt"] as? String)
        XCTAssertSuccess(try client.authenticate(user: "erin", pin: pin))
        let listed = try client.credential(keyId: try XCTUnwrap(credential.string("keyId")))
        let lastUsed = try XCTUnwrap(listed.string("lastUsedAt"))
        XCTAssertTrue(lastUsed.hasSuffix("Z"), lastUsed)
    }

    func testChangePin_oldPinStopsWorking_newPinWorks_andTheKeyStaysTheSame() throws {
        let credential = try client.register(user: "frank", pin: pin)
        let changed = try client.succeeding("ChangePin", ["user": "frank", "currentPin": pin, "newPin": otherPin])
        let after = try XCTUnwrap(changed.object("credential"))
        XCTAssertEqual(after.string("keyId"), credential.string("keyId"))
        XCTAssertEqual(after.string("publicKey"), credential.string("publicKey"))

        let old = try client.authenticate(user: "frank", pin: pin)
        XCTAssertError(old, "WrongPin")
        let new = try client.authenticate(user: "frank", pin: otherPin)
        XCTAssertSuccess(new)
        XCTAssertEqual(new.string("publicKey"), credential.string("publicKey"))
        XCTAssertEqual(try client.credential(keyId: try XCTUnwrap(credential.string("keyId"))).int("failedAttempts"), 0)
    }

    func testChangePin_withAWrongCurrentPin_answersWrongPin_andKeepsTheOldPin() throws {
        try client.register(user: "gina", pin: pin)
        let reply = try client.vault("ChangePin", ["user": "gina", "currentPin": "999999", "newPin": otherPin])
        XCTAssertError(reply, "WrongPin")
        XCTAssertEqual(reply.int("remainingAttempts"), 4)
        XCTAssertSuccess(try client.authenticate(user: "gina", pin: pin))
    }

    func testList_withAUserFilter_showsOnlyThatUsersCredentials() throws {
        try client.register(user: "hank", pin: pin, label: "one")
        try client.register(user: "hank", pin: pin, label: "two")
        try client.register(user: "ivy", pin: pin)

        XCTAssertEqual(try client.list().count, 3)
        let hank = try client.list(user: "hank")
        XCTAssertEqual(Set(hank.compactMap { $0.string("label") }), ["one", "two"])
        XCTAssertTrue(hank.allSatisfy { $0.string("user") == "hank" })
        XCTAssertEqual(try client.list(user: "ivy").count, 1)
        XCTAssertEqual(try client.list(user: "nobody-here").count, 0)
    }

    func testList_asRootWithOwnerUid_showsThatUidsCredentials() throws {
        try client.register(user: "root-user", pin: pin)
        XCTAssertEqual(try client.list(ownerUid: 0).count, 1)
        XCTAssertEqual(try client.list(ownerUid: 4242).count, 0)
    }

    func testGetPolicy_reportsTheConfiguredPolicyAndLockoutRules() throws {
        let policy = try XCTUnwrap(try client.succeeding("GetPolicy").object("policy"))
        XCTAssertEqual(policy.int("minLength"), 6)
        XCTAssertEqual(policy.int("maxLength"), 64)
        XCTAssertEqual(policy["digitsOnly"] as? Bool, true)
        XCTAssertEqual(policy.int("maxIdenticalDigits"), 3)
        XCTAssertEqual(policy["allowSequences"] as? Bool, false)
        XCTAssertEqual(policy.int("throttleAfter"), 3)
        XCTAssertEqual(policy.int("maxAttempts"), 5)
        XCTAssertEqual(policy.string("onMaxAttempts"), "block")
        let denyList = try String(contentsOfFile: TestDaemon.repositoryRoot + "/config/deny-list.txt", encoding: .utf8)
        let entries = Set(denyList.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty })
        XCTAssertEqual(policy.int("denyListSize"), entries.count)
    }

    func testCheckPin_answersValidForAGoodPin_andEveryViolationInOrderForABadOne() throws {
        let good = try client.succeeding("CheckPin", ["pin": pin])
        XCTAssertEqual(good.bool("valid"), true)
        XCTAssertEqual(good.strings("violations"), [])

        let cases: [(String, [String])] = [
            ("", ["empty"]),
            ("1111a", ["notDigits", "tooShort", "tooManyIdenticalDigits"]),
            ("1111", ["tooShort", "tooManyIdenticalDigits", "denyListed"]),
            ("123456", ["sequential", "denyListed"]),
            ("987654", ["sequential", "denyListed"]),
            (String(repeating: "13579", count: 14), ["tooLong", "tooManyIdenticalDigits"]),
        ]
        for (candidate, expected) in cases {
            let reply = try client.succeeding("CheckPin", ["pin": candidate])
            XCTAssertEqual(reply.bool("valid"), false, candidate)
            XCTAssertEqual(reply.strings("violations"), expected, candidate)
        }
    }

    func testGetStats_countsRequestsAuthenticationsAndConnections() throws {
        try client.register(user: "stats", pin: pin)
        XCTAssertSuccess(try client.authenticate(user: "stats", pin: pin))
        XCTAssertError(try client.authenticate(user: "stats", pin: "999999"), "WrongPin")
        let first = try XCTUnwrap(try client.succeeding("GetStats").object("counters"))
        XCTAssertEqual(first.int("authenticationsSucceeded"), 1)
        XCTAssertEqual(first.int("authenticationsFailed"), 1)
        XCTAssertEqual(first.int("lockouts"), 0)
        XCTAssertEqual(first.int("kdfQueueDepth"), 0)
        XCTAssertEqual(first.int("kdfRunning"), 0)
        XCTAssertGreaterThanOrEqual(first.int("activeConnections") ?? 0, 1)
        XCTAssertGreaterThanOrEqual(first.int("uptimeSeconds") ?? -1, 0)
        let requests = try XCTUnwrap(first.int("requests"))
        XCTAssertGreaterThanOrEqual(requests, 4)

        let second = try XCTUnwrap(try client.succeeding("GetStats").object("counters"))
        XCTAssertEqual(second.int("requests"), requests + 1)
    }

    func testGetInfo_namesVendorProductVersionAndInterfaces() throws {
        let info = try client.call("org.varlink.service.GetInfo")
        XCTAssertSuccess(info)
        XCTAssertEqual(info.string("vendor"), "PinVault")
        XCTAssertEqual(info.string("product"), "pinvaultd")
        XCTAssertFalse((info.string("version") ?? "").isEmpty)
        XCTAssertEqual(info.strings("interfaces"), ["org.varlink.service", "io.pinvault.Vault"])
    }

    func testGetInterfaceDescription_servesTheRepositoryInterfaceFileByteForByte() throws {
        let file = try String(contentsOfFile: TestDaemon.repositoryRoot + "/io.pinvault.Vault.varlink", encoding: .utf8)
        let reply = try client.call("org.varlink.service.GetInterfaceDescription", ["interface": "io.pinvault.Vault"])
        XCTAssertSuccess(reply)
        XCTAssertEqual(reply.string("description"), file)

        let service = try client.call("org.varlink.service.GetInterfaceDescription", ["interface": "org.varlink.service"])
        XCTAssertSuccess(service)
        XCTAssertTrue(service.string("description")?.contains("interface org.varlink.service") == true, service.description)
    }
}
