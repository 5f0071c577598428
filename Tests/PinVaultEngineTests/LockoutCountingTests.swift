import PinVaultCore
import PinVaultCrypto
import XCTest

@testable import PinVaultEngine

/// GetStats' `lockouts` counts each move of a credential into throttled, blocked or
/// wiped once, however the wrong PINs that race toward it settle (SECURITY.md, "The lockout"). The
/// races are played step by step: two attempts are counted, then checked in the
/// order the test picks, as two KDF threads could finish them.
final class LockoutCountingTests: XCTestCase {
    private let pin = "258046"
    private let wrong = "370591"

    /// What checking `attempt` with the wrong PIN answers.
    private func settle(_ fixture: EngineFixture, _ attempt: VaultEngine.CountedAttempt) throws -> VaultError? {
        do {
            _ = try fixture.engine.check(try fixture.secret(wrong), attempt, call: fixture.call)
            XCTFail("a wrong PIN opened the seed")
            return nil
        } catch let error as VaultError {
            return error
        }
    }

    private func count(_ fixture: EngineFixture, _ keyId: KeyID) throws -> VaultEngine.CountedAttempt {
        try fixture.engine.countAttempt(keyId: keyId, owner: fixture.caller.uid, call: fixture.call)
    }

    private func wrongPins(_ fixture: EngineFixture, _ keyId: KeyID, _ times: Int) throws {
        for _ in 0..<times {
            XCTAssertEqual(try settle(fixture, try count(fixture, keyId)).map(\.isWrongPin), true)
        }
    }

    func testTwoWrongPinsReachingTheBlock_settlingOutOfOrder_countOneLockout() throws {
        let fixture = try EngineFixture(lockout: LockoutPolicy(throttleAfter: 5, maxAttempts: 5, onMaxAttempts: .block))
        let keyId = try fixture.register(user: "alice", pin: pin)
        try wrongPins(fixture, keyId, 3)

        let fourth = try count(fixture, keyId)
        let fifth = try count(fixture, keyId)
        XCTAssertEqual(try settle(fixture, fifth), .credentialBlocked)
        XCTAssertEqual(try settle(fixture, fourth), .wrongPin(remainingAttempts: 0), "the fourth guess did not block it")
        XCTAssertEqual(fixture.lockouts, 1)
        XCTAssertEqual(try fixture.record(keyId)?.failedAttempts, 5)
    }

    func testTwoWrongPinsReachingTheBlock_settlingInOrder_countOneLockout() throws {
        let fixture = try EngineFixture(lockout: LockoutPolicy(throttleAfter: 5, maxAttempts: 5, onMaxAttempts: .block))
        let keyId = try fixture.register(user: "alice", pin: pin)
        try wrongPins(fixture, keyId, 3)

        let fourth = try count(fixture, keyId)
        let fifth = try count(fixture, keyId)
        XCTAssertEqual(try settle(fixture, fourth), .wrongPin(remainingAttempts: 0))
        XCTAssertEqual(try settle(fixture, fifth), .credentialBlocked)
        XCTAssertEqual(fixture.lockouts, 1)
    }

    func testAnAttemptCountedOnceBlocked_answersCredentialBlocked_withoutAKDF_andCountsNothing() throws {
        let fixture = try EngineFixture(lockout: LockoutPolicy(throttleAfter: 5, maxAttempts: 5, onMaxAttempts: .block))
        let keyId = try fixture.register(user: "alice", pin: pin)
        try wrongPins(fixture, keyId, 4)
        let fifth = try count(fixture, keyId)  // blocked from here on, before its KDF ran
        let kdfRuns = fixture.kdfEvaluations

        XCTAssertThrowsError(try count(fixture, keyId)) { XCTAssertEqual($0 as? VaultError, .credentialBlocked) }
        XCTAssertThrowsError(try fixture.engine.withVerifiedPin(
            try fixture.secret(pin), keyId: keyId, owner: fixture.caller.uid, call: fixture.call
        ) { _, _, _ in .empty }) {
            XCTAssertEqual($0 as? VaultError, .credentialBlocked, "even the right PIN")
        }
        XCTAssertEqual(fixture.kdfEvaluations, kdfRuns, "no KDF ran for the refused attempts")
        XCTAssertEqual(try fixture.record(keyId)?.failedAttempts, 5, "nothing more was counted")
        XCTAssertEqual(try settle(fixture, fifth), .credentialBlocked)
        XCTAssertEqual(fixture.lockouts, 1)
    }

    func testTwoWrongPinsReachingTheWipe_countOneLockout_whicheverSettlesFirst() throws {
        for fifthFirst in [true, false] {
            let fixture = try EngineFixture(lockout: LockoutPolicy(throttleAfter: 5, maxAttempts: 5, onMaxAttempts: .wipe))
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
            XCTAssertEqual(fixture.lockouts, 1, "fifth first: \(fifthFirst)")
            XCTAssertNil(try fixture.record(keyId))
        }
    }

    func testTwoWrongPinsReachingTheThrottle_settlingOutOfOrder_countOneLockout() throws {
        let fixture = try EngineFixture(lockout: LockoutPolicy(throttleAfter: 2, throttleBaseSeconds: 30, maxAttempts: 5))
        let keyId = try fixture.register(user: "alice", pin: pin)

        let first = try count(fixture, keyId)
        let second = try count(fixture, keyId)  // its count begins the wait
        XCTAssertEqual(try settle(fixture, second), .wrongPin(remainingAttempts: 3))
        XCTAssertEqual(try settle(fixture, first), .wrongPin(remainingAttempts: 3))
        XCTAssertEqual(fixture.lockouts, 1, "one move into throttled")
        XCTAssertThrowsError(try count(fixture, keyId)) {
            guard case .lockedOut = $0 as? VaultError else { return XCTFail("\($0)") }
        }
    }
}

extension VaultError {
    var isWrongPin: Bool {
        if case .wrongPin = self { return true }
        return false
    }
}

/// A credential left at `max_attempts` under `wipe` (a crash between counting and
/// answering) is deleted by the next call, which alone answers CredentialWiped.
final class ExhaustedCredentialTests: XCTestCase {
    func testACredentialLeftAtMaxAttempts_isWipedOnce_andCountsOneLockout() throws {
        let fixture = try EngineFixture(lockout: LockoutPolicy(throttleAfter: 5, maxAttempts: 5, onMaxAttempts: .wipe))
        let keyId = try fixture.register(user: "alice", pin: "258046")
        var exhausted = try XCTUnwrap(try fixture.record(keyId))
        exhausted.failedAttempts = 5
        try fixture.store.write { try $0.update(exhausted) }

        let call = fixture.call
        let owner = fixture.caller.uid
        XCTAssertThrowsError(try fixture.engine.admit(call, owner: owner, user: "alice", keyId: keyId)) {
            XCTAssertEqual($0 as? VaultError, .credentialWiped)
        }
        XCTAssertThrowsError(try fixture.engine.countAttempt(keyId: keyId, owner: owner, call: call)) {
            XCTAssertEqual($0 as? VaultError, .noSuchCredential)
        }
        XCTAssertEqual(fixture.lockouts, 1)
        XCTAssertEqual(fixture.kdfEvaluations, 1, "only the registration's")
    }

    func testACredentialLeftAtMaxAttempts_isWipedByTheCountingTransaction() throws {
        let fixture = try EngineFixture(lockout: LockoutPolicy(throttleAfter: 5, maxAttempts: 5, onMaxAttempts: .wipe))
        let keyId = try fixture.register(user: "alice", pin: "258046")
        var exhausted = try XCTUnwrap(try fixture.record(keyId))
        exhausted.failedAttempts = 5
        try fixture.store.write { try $0.update(exhausted) }

        XCTAssertThrowsError(try fixture.engine.countAttempt(keyId: keyId, owner: fixture.caller.uid, call: fixture.call)) {
            XCTAssertEqual($0 as? VaultError, .credentialWiped)
        }
        XCTAssertNil(try fixture.record(keyId))
        XCTAssertEqual(fixture.lockouts, 1)
    }
}
