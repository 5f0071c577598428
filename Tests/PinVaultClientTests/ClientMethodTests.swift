import Foundation
import Glibc
import PinVaultClient
import PinVaultTestKit
import XCTest

/// Every method against a real daemon: it succeeds and its reply is mapped to the
/// public types field by field.
final class ClientMethodTests: ClientTestCase {
    override func setUpWithError() throws {
        try startDaemon()
    }

    func testGetPolicy_returnsThePolicyInForce() async throws {
        let policy = try await client.getPolicy()
        XCTAssertEqual(policy.minLength, 6)
        XCTAssertEqual(policy.maxLength, 64)
        XCTAssertTrue(policy.digitsOnly)
        XCTAssertEqual(policy.maxIdenticalDigits, 3)
        XCTAssertFalse(policy.allowSequences)
        XCTAssertGreaterThan(policy.denyListSize, 1000)
        XCTAssertEqual(policy.throttleAfter, 3)
        XCTAssertEqual(policy.maxAttempts, 5)
        XCTAssertEqual(policy.onMaxAttempts, .block)
    }

    func testCheckPin_withAGoodPin_isValid() async throws {
        let check = try await client.checkPin(PIN(goodPin))
        XCTAssertEqual(check, PinCheck(valid: true, violations: []))
    }

    func testCheckPin_withABadPin_listsEveryViolationInOrder() async throws {
        let check = try await client.checkPin(PIN("1234"))
        XCTAssertFalse(check.valid)
        XCTAssertEqual(check.violations, [.tooShort, .sequential, .denyListed])
        let firstViolation = try await client.checkPin(PIN("")).violations.first
        XCTAssertEqual(firstViolation, .empty)
    }

    func testRegister_returnsTheNewCredential_withEveryFieldMapped() async throws {
        let before = Date(timeIntervalSinceNow: -2)
        let credential = try await register("alice@example.com", label: "laptop")
        XCTAssertEqual(credential.user, "alice@example.com")
        XCTAssertEqual(credential.label, "laptop")
        XCTAssertEqual(credential.keyId.count, 32)
        XCTAssertTrue(credential.keyId.allSatisfy { $0.isHexDigit && !$0.isUppercase }, credential.keyId)
        XCTAssertEqual(credential.publicKey.count, 32)
        XCTAssertEqual(credential.ownerUid, getuid())
        XCTAssertTrue((before...Date(timeIntervalSinceNow: 2)).contains(credential.createdAt.date), "\(credential.createdAt)")
        XCTAssertNil(credential.lastUsedAt)
        XCTAssertEqual(credential.failedAttempts, 0)
        XCTAssertEqual(credential.remainingAttempts, 5)
        XCTAssertEqual(credential.state, .active)
        XCTAssertNil(credential.lockedUntil)
        XCTAssertNil(credential.unregistrationExpiresAt)
    }

    func testList_returnsTheCallersCredentials_allOrOfOneUser() async throws {
        let alice = try await register("alice")
        let bob = try await register("bob")
        let listed = try await client.list().sorted { $0.keyId < $1.keyId }
        XCTAssertEqual(listed, [alice, bob].sorted { $0.keyId < $1.keyId })
        let bobs = try await client.list(user: "bob")
        XCTAssertEqual(bobs, [bob])
        let bobsOfOwner = try await client.list(user: "bob", ownerUid: getuid())
        XCTAssertEqual(bobsOfOwner, [bob])
        let none = try await client.list(user: "nobody-here")
        XCTAssertEqual(none, [])
    }

    func testAuthenticate_signsExactlyTheChallenge_verifiedByAnIndependentLibrary() async throws {
        let credential = try await register("alice")
        let challenge = Array("relying party nonce \u{0} 42".utf8)
        let authentication = try await client.authenticate(user: "alice", pin: PIN(goodPin), challenge: challenge)
        XCTAssertEqual(authentication.keyId, credential.keyId)
        XCTAssertEqual(authentication.publicKey, credential.publicKey)
        XCTAssertEqual(authentication.signature.count, 64)
        XCTAssertFalse(authentication.pinPolicyOutdated)
        XCTAssertTrue(try verifiedIndependently(authentication, challenge: challenge))
        XCTAssertFalse(try verifiedIndependently(authentication, challenge: challenge + [0]))
        let lastUsedAt = try await client.list(user: "alice").first?.lastUsedAt
        XCTAssertNotNil(lastUsedAt)
    }

    func testAuthenticate_afterWrongPins_returnsTheWrongPinsItCleared() async throws {
        _ = try await client.register(user: "alice", pin: PIN(goodPin))
        for _ in 0..<2 {
            do {
                _ = try await client.authenticate(user: "alice", pin: PIN(wrongPin), challenge: [1])
                XCTFail("a wrong PIN signed")
            } catch {
                XCTAssertEqual(error.code, .wrongPin)
            }
        }
        let cleared = try await client.authenticate(user: "alice", pin: PIN(goodPin), challenge: [1])
        XCTAssertEqual(cleared.failedAttemptsCleared, 2)
        let clean = try await client.authenticate(user: "alice", pin: PIN(goodPin), challenge: [1])
        XCTAssertEqual(clean.failedAttemptsCleared, 0)
    }

    func testAuthenticate_withAKeyId_usesThatCredential() async throws {
        _ = try await register("alice", label: "one")
        let second = try await register("alice", label: "two")
        let authentication = try await client.authenticate(user: "alice", keyId: second.keyId, pin: PIN(goodPin), challenge: [7])
        XCTAssertEqual(authentication.keyId, second.keyId)
        XCTAssertTrue(try verifiedIndependently(authentication, challenge: [7]))
    }

    func testChangePin_replacesThePin() async throws {
        let credential = try await register("alice")
        let changed = try await client.changePin(user: "alice", currentPin: PIN(goodPin), newPin: PIN(otherPin))
        XCTAssertEqual(changed.keyId, credential.keyId)
        XCTAssertEqual(changed.publicKey, credential.publicKey)
        await XCTAssertThrowsPinVaultError(.wrongPin(remainingAttempts: 4)) {
            try await client.authenticate(user: "alice", pin: PIN(goodPin), challenge: [1])
        }
        let keyId = try await client.authenticate(user: "alice", pin: PIN(otherPin), challenge: [1]).keyId
        XCTAssertEqual(keyId, credential.keyId)
    }

    func testBeginUnregister_returnsAToken_andCommitDeletesTheCredential() async throws {
        let credential = try await register("alice")
        let pending = try await client.beginUnregister(user: "alice", pin: PIN(goodPin))
        XCTAssertEqual(pending.keyId, credential.keyId)
        XCTAssertTrue(pending.token.withUnsafeBytes { text in
            text.count == 43 && text.allSatisfy { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || isalnum(Int32($0)) != 0 }
        })
        let expiry = pending.expiresAt.timeIntervalSinceNow
        XCTAssertTrue((290...302).contains(expiry), "expires in \(expiry) s")
        let listed = try await client.list(user: "alice")
        XCTAssertEqual(listed.first?.state, .pendingUnregistration)
        XCTAssertEqual(listed.first?.unregistrationExpiresAt?.date, pending.expiresAt)

        try await client.commitUnregister(keyId: pending.keyId, token: pending.token)
        let remaining = try await client.list(user: "alice")
        XCTAssertEqual(remaining, [])
    }

    func testAbortUnregister_makesTheCredentialUsableAgain() async throws {
        _ = try await register("alice")
        let pending = try await client.beginUnregister(user: "alice", pin: PIN(goodPin))
        try await client.abortUnregister(keyId: pending.keyId, token: pending.token)
        let state = try await client.list(user: "alice").first?.state
        XCTAssertEqual(state, .active)
        _ = try await client.authenticate(user: "alice", pin: PIN(goodPin), challenge: [1])
    }

    func testBeginUnregister_byAnAdminWithoutAPin_succeeds() async throws {
        let credential = try await register("alice")
        let pending = try await client.beginUnregister(user: "alice", keyId: credential.keyId, pin: nil)
        XCTAssertEqual(pending.keyId, credential.keyId)
    }

    func testWipe_deletesEveryCredentialOfTheUser_andNoOther() async throws {
        let first = try await register("alice", label: "one")
        let second = try await register("alice", label: "two")
        let bob = try await register("bob")
        let result = try await client.wipe(user: "alice", keyId: first.keyId, pin: PIN(goodPin))
        XCTAssertEqual(result.user, "alice")
        XCTAssertEqual(Set(result.deletedKeyIds), [first.keyId, second.keyId])
        let remaining = try await client.list()
        XCTAssertEqual(remaining, [bob])
    }

    func testWipe_byAnAdminWithoutAPin_forAnOwnerUid_succeeds() async throws {
        let credential = try await register("alice")
        let result = try await client.wipe(user: "alice", pin: nil, ownerUid: getuid())
        XCTAssertEqual(result, WipeResult(user: "alice", deletedKeyIds: [credential.keyId]))
    }

    func testResetEverything_deletesAllCredentials_andCountsThem() async throws {
        try await register("alice")
        try await register("bob")
        let deleted = try await client.resetEverything()
        XCTAssertEqual(deleted, 2)
        let remaining = try await client.list()
        XCTAssertEqual(remaining, [])
    }

    func testStats_countsSucceededAndFailedAuthentications() async throws {
        try await register("alice")
        _ = try await client.authenticate(user: "alice", pin: PIN(goodPin), challenge: [1])
        _ = await thrownError { try await client.authenticate(user: "alice", pin: PIN(wrongPin), challenge: [1]) }
        let stats = try await client.stats()
        XCTAssertEqual(stats.authenticationsSucceeded, 1)
        XCTAssertEqual(stats.authenticationsFailed, 1)
        XCTAssertEqual(stats.lockouts, 0)
        XCTAssertGreaterThanOrEqual(stats.requests, 3)
        XCTAssertGreaterThanOrEqual(stats.activeConnections, 1)
        XCTAssertEqual(stats.kdfRunning, 0)
        XCTAssertEqual(stats.kdfQueueDepth, 0)
        XCTAssertGreaterThanOrEqual(stats.kdfEvaluations, 3, "one seal and two PIN checks")
        XCTAssertGreaterThanOrEqual(stats.uptimeSeconds, 0)
    }

    func testConcurrentCallsOnOneClient_eachGetTheirOwnReply() async throws {
        let client = try XCTUnwrap(client)
        let pin = goodPin
        let users = (0..<6).map { "user-\($0)" }
        let registered = try await withThrowingTaskGroup(of: (String, Credential).self) { group in
            for user in users {
                group.addTask { (user, try await client.register(user: user, pin: PIN(pin))) }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        XCTAssertEqual(registered.count, users.count)
        for (user, credential) in registered {
            XCTAssertEqual(credential.user, user)
        }
    }

    func testAPin_isZeroedOnceTheCallCarriedIt_whetherItSucceededOrFailed() async throws {
        let pin = PIN(goodPin)
        XCTAssertEqual(pin.byteCount, 6)
        _ = try await client.register(user: "alice", pin: pin)
        XCTAssertTrue(pin.isConsumed)
        XCTAssertEqual(pin.byteCount, 0)

        let wrong = PIN(wrongPin)
        _ = await thrownError { try await client.authenticate(user: "alice", pin: wrong, challenge: [1]) }
        XCTAssertTrue(wrong.isConsumed)
        XCTAssertEqual(wrong.byteCount, 0)

        let current = PIN(goodPin)
        let new = PIN(otherPin)
        _ = try await client.changePin(user: "alice", currentPin: current, newPin: new)
        XCTAssertTrue(current.isConsumed && new.isConsumed)
    }
}
