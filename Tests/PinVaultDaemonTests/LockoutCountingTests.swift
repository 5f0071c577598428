import PinVaultCore
import PinVaultCrypto
import XCTest

@testable import PinVaultDaemon

/// GetStats' `lockouts` counts each move of a credential into throttled, blocked or
/// wiped once, however the wrong PINs that race toward it settle (DESIGN §5). The
/// races are played step by step: two attempts are counted, then checked in the
/// order the test picks, as two KDF threads could finish them.
final class LockoutCountingTests: XCTestCase {
    private let pin = "258046"
    private let wrong = "370591"

    /// What checking `attempt` with the wrong PIN answers.
    private func settle(_ fixture: ServiceFixture, _ attempt: VaultService.CountedAttempt) throws -> ServiceError? {
        do {
            _ = try fixture.service.check(try fixture.secret(wrong), attempt, call: fixture.call)
            XCTFail("a wrong PIN opened the seed")
            return nil
        } catch let error as ServiceError {
            return error
        }
    }

    private func count(_ fixture: ServiceFixture, _ keyId: KeyID) throws -> VaultService.CountedAttempt {
        try fixture.service.countAttempt(keyId: keyId, owner: fixture.peer.uid, call: fixture.call)
    }

    private func wrongPins(_ fixture: ServiceFixture, _ keyId: KeyID, _ times: Int) throws {
        for _ in 0..<times {
            XCTAssertEqual(try settle(fixture, try count(fixture, keyId)).map(\.isWrongPin), true)
        }
    }

    func testTwoWrongPinsReachingTheBlock_settlingOutOfOrder_countOneLockout() throws {
        let fixture = try ServiceFixture(lockout: LockoutPolicy(throttleAfter: 5, maxAttempts: 5, onMaxAttempts: .block))
        let keyId = try fixture.register(user: "alice", pin: pin)
        try wrongPins(fixture, keyId, 3)

        let fourth = try count(fixture, keyId)
        let fifth = try count(fixture, keyId)
        XCTAssertEqual(try settle(fixture, fifth), .credentialBlocked)
        XCTAssertEqual(try settle(fixture, fourth), .wrongPin(remainingAttempts: 0), "the fourth guess did not block it")
        XCTAssertEqual(fixture.stats.snapshot().lockouts, 1)
        XCTAssertEqual(try fixture.record(keyId)?.failedAttempts, 5)
    }

    func testTwoWrongPinsReachingTheBlock_settlingInOrder_countOneLockout() throws {
        let fixture = try ServiceFixture(lockout: LockoutPolicy(throttleAfter: 5, maxAttempts: 5, onMaxAttempts: .block))
        let keyId = try fixture.register(user: "alice", pin: pin)
        try wrongPins(fixture, keyId, 3)

        let fourth = try count(fixture, keyId)
        let fifth = try count(fixture, keyId)
        XCTAssertEqual(try settle(fixture, fourth), .wrongPin(remainingAttempts: 0))
        XCTAssertEqual(try settle(fixture, fifth), .credentialBlocked)
        XCTAssertEqual(fixture.stats.snapshot().lockouts, 1)
    }

    func testAnAttemptCountedOnceBlocked_answersCredentialBlocked_withoutAKDF_andCountsNothing() throws {
        let fixture = try ServiceFixture(lockout: LockoutPolicy(throttleAfter: 5, maxAttempts: 5, onMaxAttempts: .block))
        let keyId = try fixture.register(user: "alice", pin: pin)
        try wrongPins(fixture, keyId, 4)
        let fifth = try count(fixture, keyId)  // blocked from here on, before its KDF ran
        let kdfRuns = fixture.stats.snapshot().kdfEvaluations

        XCTAssertThrowsError(try count(fixture, keyId)) { XCTAssertEqual($0 as? ServiceError, .credentialBlocked) }
        XCTAssertThrowsError(try fixture.service.verify(try fixture.secret(pin), keyId: keyId, owner: fixture.peer.uid, call: fixture.call)) {
            XCTAssertEqual($0 as? ServiceError, .credentialBlocked, "even the right PIN")
        }
        XCTAssertEqual(fixture.stats.snapshot().kdfEvaluations, kdfRuns, "no KDF ran for the refused attempts")
        XCTAssertEqual(try fixture.record(keyId)?.failedAttempts, 5, "nothing more was counted")
        XCTAssertEqual(try settle(fixture, fifth), .credentialBlocked)
        XCTAssertEqual(fixture.stats.snapshot().lockouts, 1)
    }

    func testTwoWrongPinsReachingTheWipe_countOneLockout_whicheverSettlesFirst() throws {
        for fifthFirst in [true, false] {
            let fixture = try ServiceFixture(lockout: LockoutPolicy(throttleAfter: 5, maxAttempts: 5, onMaxAttempts: .wipe))
            let keyId = try fixture.register(user: "alice", pin: pin)
            try wrongPins(fixture, keyId, 3)

            let fourth = try count(fixture, keyId)
            let fifth = try count(fixture, keyId)
            if fifthFirst {
                XCTAssertEqual(try settle(fixture, fifth), .credentialWiped)
                XCTAssertEqual(try settle(fixture, fourth), .noSuchCredential, "it is gone")
            } else {
                XCTAssertEqual(try settle(fixture, fourth), .wrongPin(remainingAttempts: 0))
                XCTAssertEqual(try settle(fixture, fifth), .credentialWiped)
            }
            XCTAssertEqual(fixture.stats.snapshot().lockouts, 1, "fifth first: \(fifthFirst)")
            XCTAssertNil(try fixture.record(keyId))
        }
    }

    func testTwoWrongPinsReachingTheThrottle_settlingOutOfOrder_countOneLockout() throws {
        let fixture = try ServiceFixture(lockout: LockoutPolicy(throttleAfter: 2, throttleBaseSeconds: 30, maxAttempts: 5))
        let keyId = try fixture.register(user: "alice", pin: pin)

        let first = try count(fixture, keyId)
        let second = try count(fixture, keyId)  // its count begins the wait
        XCTAssertEqual(try settle(fixture, second), .wrongPin(remainingAttempts: 3))
        XCTAssertEqual(try settle(fixture, first), .wrongPin(remainingAttempts: 3))
        XCTAssertEqual(fixture.stats.snapshot().lockouts, 1, "one move into throttled")
        XCTAssertThrowsError(try count(fixture, keyId)) {
            guard case .lockedOut = $0 as? ServiceError else { return XCTFail("\($0)") }
        }
    }
}

extension ServiceError {
    fileprivate var isWrongPin: Bool {
        if case .wrongPin = self { return true }
        return false
    }
}

/// A credential left at `max_attempts` under `wipe` (a crash between counting and
/// answering) is deleted by the next call, which alone answers CredentialWiped.
final class ExhaustedCredentialTests: XCTestCase {
    func testACredentialLeftAtMaxAttempts_isWipedOnce_andCountsOneLockout() throws {
        let fixture = try ServiceFixture(lockout: LockoutPolicy(throttleAfter: 5, maxAttempts: 5, onMaxAttempts: .wipe))
        let keyId = try fixture.register(user: "alice", pin: "258046")
        var exhausted = try XCTUnwrap(try fixture.record(keyId))
        exhausted.failedAttempts = 5
        try fixture.store.write { try $0.update(exhausted) }

        let call = fixture.call
        let owner = fixture.peer.uid
        XCTAssertThrowsError(try fixture.service.admit(call, owner: owner, user: "alice", keyId: keyId)) {
            XCTAssertEqual($0 as? ServiceError, .credentialWiped)
        }
        XCTAssertThrowsError(try fixture.service.countAttempt(keyId: keyId, owner: owner, call: call)) {
            XCTAssertEqual($0 as? ServiceError, .noSuchCredential)
        }
        XCTAssertEqual(fixture.stats.snapshot().lockouts, 1)
        XCTAssertEqual(fixture.stats.snapshot().kdfEvaluations, 1, "only the registration's")
    }

    func testACredentialLeftAtMaxAttempts_isWipedByTheCountingTransaction() throws {
        let fixture = try ServiceFixture(lockout: LockoutPolicy(throttleAfter: 5, maxAttempts: 5, onMaxAttempts: .wipe))
        let keyId = try fixture.register(user: "alice", pin: "258046")
        var exhausted = try XCTUnwrap(try fixture.record(keyId))
        exhausted.failedAttempts = 5
        try fixture.store.write { try $0.update(exhausted) }

        XCTAssertThrowsError(try fixture.service.countAttempt(keyId: keyId, owner: fixture.peer.uid, call: fixture.call)) {
            XCTAssertEqual($0 as? ServiceError, .credentialWiped)
        }
        XCTAssertNil(try fixture.record(keyId))
        XCTAssertEqual(fixture.stats.snapshot().lockouts, 1)
    }
}
