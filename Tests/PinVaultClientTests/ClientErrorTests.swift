import Foundation
import Glibc
import PinVaultClient
import PinVaultTestKit
import XCTest

/// Every `io.pinvault.Vault` error and `InvalidParameter`, provoked on a real daemon and
/// mapped to its typed case with its parameters.
final class ClientErrorTests: ClientTestCase {
    func testAWrongPin_isWrongPin_withTheAttemptsLeft() async throws {
        try startDaemon()
        try await register("alice")
        for remaining in [4, 3] {
            await XCTAssertThrowsPinVaultError(.wrongPin(remainingAttempts: remaining)) {
                try await client.authenticate(user: "alice", pin: PIN(wrongPin), challenge: [1])
            }
        }
    }

    func testACallDuringAThrottle_isLockedOut_withTheWaitAsADuration() async throws {
        try startDaemon(["lockout": ["throttle_base_seconds": "20", "throttle_max_seconds": "40"]])
        try await register("alice")
        for _ in 0..<3 {
            _ = await thrownError { try await client.authenticate(user: "alice", pin: PIN(wrongPin), challenge: [1]) }
        }
        let error = await thrownError { try await client.authenticate(user: "alice", pin: PIN(goodPin), challenge: [1]) }
        guard error?.code == .lockedOut, let retryAfter = error?.retryAfter else { return XCTFail("expected lockedOut, got \(String(describing: error))") }
        XCTAssertTrue((Duration.seconds(1)...Duration.seconds(20)).contains(retryAfter), "\(retryAfter)")
        let state = try await client.list(user: "alice").first?.state
        XCTAssertEqual(state, .throttled)
        let lockedUntil = try await client.list(user: "alice").first?.lockedUntil
        XCTAssertNotNil(lockedUntil)
    }

    func testMaxAttempts_isCredentialBlocked_andUnblockRevivesTheCredential() async throws {
        try startDaemon(["lockout": ["throttle_after": "3", "max_attempts": "3"]])
        let credential = try await register("alice")
        for remaining in [2, 1] {
            await XCTAssertThrowsPinVaultError(.wrongPin(remainingAttempts: remaining)) {
                try await client.authenticate(user: "alice", pin: PIN(wrongPin), challenge: [1])
            }
        }
        await XCTAssertThrowsPinVaultError(.credentialBlocked) {
            try await client.authenticate(user: "alice", pin: PIN(wrongPin), challenge: [1])
        }
        let state = try await client.list(user: "alice").first?.state
        XCTAssertEqual(state, .blocked)

        let unblocked = try await client.unblock(ownerUid: getuid(), user: "alice", keyId: credential.keyId)
        XCTAssertEqual(unblocked.state, .active)
        XCTAssertEqual(unblocked.failedAttempts, 0)
        XCTAssertEqual(unblocked.remainingAttempts, 3)
        _ = try await client.authenticate(user: "alice", pin: PIN(goodPin), challenge: [1])
    }

    func testMaxAttemptsInWipeMode_isCredentialWiped() async throws {
        try startDaemon(["lockout": ["throttle_after": "2", "max_attempts": "2", "on_max_attempts": "\"wipe\""]])
        try await register("alice")
        let onMaxAttempts = try await client.getPolicy().onMaxAttempts
        XCTAssertEqual(onMaxAttempts, .wipe)
        _ = await thrownError { try await client.authenticate(user: "alice", pin: PIN(wrongPin), challenge: [1]) }
        await XCTAssertThrowsPinVaultError(.credentialWiped) {
            try await client.authenticate(user: "alice", pin: PIN(wrongPin), challenge: [1])
        }
        let remaining = try await client.list()
        XCTAssertEqual(remaining, [])
    }

    func testAPinAgainstThePolicy_isPinPolicyViolation_withEveryRule() async throws {
        try startDaemon()
        await XCTAssertThrowsPinVaultError(.pinPolicyViolation([.notDigits, .tooShort])) {
            try await client.register(user: "alice", pin: PIN("12a"))
        }
        try await register("alice")
        await XCTAssertThrowsPinVaultError(.pinPolicyViolation([.sameAsCurrent])) {
            try await client.changePin(user: "alice", currentPin: PIN(goodPin), newPin: PIN(goodPin))
        }
    }

    func testTheSamePinObjectAsCurrentAndNew_isSentTwice_andAnsweredSameAsCurrent() async throws {
        try startDaemon()
        try await register("alice")
        let pin = PIN(goodPin)
        await XCTAssertThrowsPinVaultError(.pinPolicyViolation([.sameAsCurrent])) {
            try await client.changePin(user: "alice", currentPin: pin, newPin: pin)
        }
        XCTAssertTrue(pin.isConsumed)
    }

    func testAnUnknownUserOrKeyId_isNoSuchCredential() async throws {
        try startDaemon()
        try await register("alice")
        await XCTAssertThrowsPinVaultError(.noSuchCredential) {
            try await client.authenticate(user: "bob", pin: PIN(goodPin), challenge: [1])
        }
        await XCTAssertThrowsPinVaultError(.noSuchCredential) {
            try await client.authenticate(user: "alice", keyId: String(repeating: "0", count: 32), pin: PIN(goodPin), challenge: [1])
        }
    }

    func testNoKeyIdForAUserWithSeveral_isAmbiguousCredential_listingThem() async throws {
        try startDaemon()
        let first = try await register("alice", label: "one")
        let second = try await register("alice", label: "two")
        let error = await thrownError { try await client.authenticate(user: "alice", pin: PIN(goodPin), challenge: [1]) }
        guard error?.code == .ambiguousCredential, let keyIds = error?.keyIds else { return XCTFail("got \(String(describing: error))") }
        XCTAssertEqual(Set(keyIds), [first.keyId, second.keyId])
    }

    func testOneCredentialPastTheLimit_isTooManyCredentials_withTheLimit() async throws {
        try startDaemon(["credentials": ["max_per_user": "2"]])
        try await register("alice")
        try await register("alice")
        await XCTAssertThrowsPinVaultError(.tooManyCredentials(limit: 2)) {
            try await client.register(user: "alice", pin: PIN(goodPin))
        }
    }

    func testUsingACredentialPendingUnregistration_isUnregistrationPending_untilItsExpiry() async throws {
        try startDaemon()
        try await register("alice")
        let pending = try await client.beginUnregister(user: "alice", pin: PIN(goodPin))
        await XCTAssertThrowsPinVaultError(.unregistrationPending(expiresAt: pending.expiresAt)) {
            try await client.authenticate(user: "alice", pin: PIN(goodPin), challenge: [1])
        }
    }

    func testAWrongToken_isInvalidToken() async throws {
        try startDaemon()
        let credential = try await register("alice")
        _ = try await client.beginUnregister(user: "alice", pin: PIN(goodPin))
        let forged = UnregistrationToken(copying: Array(String(repeating: "A", count: 43).utf8))
        await XCTAssertThrowsPinVaultError(.invalidToken) {
            try await client.commitUnregister(keyId: credential.keyId, token: forged)
        }
        let state = try await client.list(user: "alice").first?.state
        XCTAssertEqual(state, .pendingUnregistration)
    }

    func testAValueTheDaemonRefuses_isInvalidParameter_namingIt() async throws {
        try startDaemon()
        await XCTAssertThrowsPinVaultError(.invalidParameter("user")) {
            try await client.register(user: "al\u{1}ice", pin: PIN(goodPin))
        }
        await XCTAssertThrowsPinVaultError(.invalidParameter("ownerUid")) {
            try await client.list(ownerUid: UInt32.max)
        }
        // The connection stays usable after an error reply.
        let listed = try await client.list()
        XCTAssertEqual(listed, [])
    }

    func testAValueOutsideTheWireLimits_isInvalidParameter_withoutBeingSent_andThePinIsWiped() async throws {
        try startDaemon()
        let pin = PIN(goodPin)
        await XCTAssertThrowsPinVaultError(.invalidParameter("challenge")) {
            try await client.authenticate(user: "alice", pin: pin, challenge: [])
        }
        XCTAssertTrue(pin.isConsumed)
        await XCTAssertThrowsPinVaultError(.invalidParameter("user")) {
            try await client.register(user: String(repeating: "u", count: 257), pin: PIN(goodPin))
        }
        await XCTAssertThrowsPinVaultError(.invalidParameter("keyId")) {
            try await client.authenticate(user: "alice", keyId: "ABC", pin: PIN(goodPin), challenge: [1])
        }
        await XCTAssertThrowsPinVaultError(.invalidParameter("pin")) {
            try await client.checkPin(PIN(String(repeating: "1", count: 1025)))
        }
        let stats = try await client.stats()
        XCTAssertLessThanOrEqual(stats.requests, 1, "nothing but GetStats itself was sent")
    }

    func testAPinUsedTwice_isPinConsumed_andAWipedPinToo() async throws {
        try startDaemon()
        let pin = PIN(goodPin)
        _ = try await client.register(user: "alice", pin: pin)
        await XCTAssertThrowsPinVaultError(.pinConsumed) {
            try await client.authenticate(user: "alice", pin: pin, challenge: [1])
        }
        let wiped = PIN(goodPin)
        wiped.wipe()
        let other = PIN(otherPin)
        await XCTAssertThrowsPinVaultError(.pinConsumed) {
            try await client.changePin(user: "alice", currentPin: wiped, newPin: other)
        }
        XCTAssertTrue(other.isConsumed, "every PIN of a call that fails before sending is wiped")
        let failedAttempts = try await client.list(user: "alice").first?.failedAttempts
        XCTAssertEqual(failedAttempts, 0)
    }
}
