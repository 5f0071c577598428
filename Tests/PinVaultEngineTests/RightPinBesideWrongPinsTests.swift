import PinVaultCore
import PinVaultCrypto
import XCTest

@testable import PinVaultEngine

/// A right PIN checked beside wrong ones (SECURITY.md, "What the lockout promises"),
/// played step by step as KDF threads could finish them: each attempt is counted, then
/// checked, in the order the test picks. A right PIN clears and reports the wrong PINs
/// answered before it, and leaves counted — for the lockout and the owner's next
/// success — those whose check still runs; no wrong PIN answered WrongPin is erased
/// unreported, and no right PIN is reported as a wrong one. (Before, each success wrote
/// the cleared count over the row and reported the count from before its own attempt.)
final class RightPinBesideWrongPinsTests: XCTestCase {
    private let pin = "258046"
    private let wrong = "370591"

    private func count(_ fixture: EngineFixture, _ keyId: KeyID) throws -> VaultEngine.CountedAttempt {
        try fixture.engine.countAttempt(keyId: keyId, owner: fixture.caller.uid, call: fixture.call)
    }

    /// Checks `attempt` with the wrong PIN: what it answered.
    private func settleWrong(_ fixture: EngineFixture, _ attempt: VaultEngine.CountedAttempt) throws -> VaultError? {
        do {
            _ = try fixture.engine.check(try fixture.secret(wrong), attempt, call: fixture.call)
            XCTFail("a wrong PIN opened the seed")
            return nil
        } catch let error as VaultError {
            return error
        }
    }

    /// Checks `attempt` with the right PIN and writes its success as a PIN call's body
    /// does: the wrong PINs it reports.
    private func succeed(_ fixture: EngineFixture, _ attempt: VaultEngine.CountedAttempt) throws -> Int {
        _ = try fixture.engine.check(try fixture.secret(pin), attempt, call: fixture.call)
        return try fixture.store.write { writer in
            let current = try XCTUnwrap(try writer.credential(keyId: attempt.record.keyId))
            let (record, cleared) = fixture.engine.clearing(current, by: .init(attempt: attempt.inFlight))
            try writer.update(record)
            return cleared
        }
    }

    private func failures(_ fixture: EngineFixture, _ keyId: KeyID) throws -> Int? {
        try fixture.record(keyId)?.failedAttempts
    }

    func testAWrongPinAnsweredWhileARightPinRuns_isReportedByIt() throws {
        let fixture = try EngineFixture(lockout: LockoutPolicy(throttleAfter: 5, maxAttempts: 10))
        let keyId = try fixture.register(user: "alice", pin: pin)
        let owner = try count(fixture, keyId)
        let guess = try count(fixture, keyId)
        XCTAssertEqual(try settleWrong(fixture, guess), .wrongPin(remainingAttempts: 8))
        XCTAssertEqual(try succeed(fixture, owner), 1, "the owner is told of the guess answered before")
        XCTAssertEqual(try failures(fixture, keyId), 0)
    }

    func testAWrongPinStillRunning_whenARightPinSucceeds_staysCounted_forTheNextSuccess() throws {
        let fixture = try EngineFixture(lockout: LockoutPolicy(throttleAfter: 5, maxAttempts: 10))
        let keyId = try fixture.register(user: "alice", pin: pin)
        let owner = try count(fixture, keyId)
        let guess = try count(fixture, keyId)
        XCTAssertEqual(try succeed(fixture, owner), 0, "the guess is not answered yet")
        XCTAssertEqual(try failures(fixture, keyId), 1, "it stays counted as the wrong PIN it may be")
        XCTAssertEqual(try settleWrong(fixture, guess), .wrongPin(remainingAttempts: 9))
        XCTAssertEqual(try failures(fixture, keyId), 1, "and it was one")
        XCTAssertEqual(try succeed(fixture, try count(fixture, keyId)), 1, "the next success reports it")
        XCTAssertEqual(try failures(fixture, keyId), 0)
    }

    func testAWrongPinCountedBeforeTheRightPin_andAnsweredAfterIt_staysCounted() throws {
        let fixture = try EngineFixture(lockout: LockoutPolicy(throttleAfter: 5, maxAttempts: 10))
        let keyId = try fixture.register(user: "alice", pin: pin)
        let guess = try count(fixture, keyId)
        let owner = try count(fixture, keyId)
        XCTAssertEqual(try succeed(fixture, owner), 0)
        XCTAssertEqual(try settleWrong(fixture, guess), .wrongPin(remainingAttempts: 9))
        XCTAssertEqual(try failures(fixture, keyId), 1)
        XCTAssertEqual(try succeed(fixture, try count(fixture, keyId)), 1)
    }

    func testTwoRightPinsSideBySide_reportNeitherAsAWrongPin() throws {
        let fixture = try EngineFixture(lockout: LockoutPolicy(throttleAfter: 5, maxAttempts: 10))
        let keyId = try fixture.register(user: "alice", pin: pin)
        let first = try count(fixture, keyId)
        let second = try count(fixture, keyId)
        XCTAssertEqual(try succeed(fixture, first), 0)
        XCTAssertEqual(try succeed(fixture, second), 0, "the other success was no wrong PIN")
        XCTAssertEqual(try failures(fixture, keyId), 0)
    }

    /// The throttle still counts guesses answered after a success: two of them, still
    /// running when the owner's right PIN settles, and one more make the third failure,
    /// which begins the wait.
    func testGuessesStillRunning_whenARightPinSucceeds_countTowardTheThrottle() throws {
        let fixture = try EngineFixture(lockout: LockoutPolicy(throttleAfter: 3, throttleBaseSeconds: 30, maxAttempts: 5))
        let keyId = try fixture.register(user: "alice", pin: pin)
        let owner = try count(fixture, keyId)
        let guesses = [try count(fixture, keyId), try count(fixture, keyId)]
        XCTAssertEqual(try succeed(fixture, owner), 0)
        for guess in guesses {
            XCTAssertEqual(try settleWrong(fixture, guess).map(\.isWrongPin), true)
        }
        XCTAssertEqual(try failures(fixture, keyId), 2)
        XCTAssertEqual(try settleWrong(fixture, try count(fixture, keyId)), .wrongPin(remainingAttempts: 2))
        XCTAssertThrowsError(try count(fixture, keyId)) {
            guard case .lockedOut = $0 as? VaultError else { return XCTFail("\($0)") }
        }
    }

    /// A success whose body fails (an Unlock whose table filled, say) takes back its own
    /// attempt only: it reports nothing, since its call answers an error, so it clears
    /// nothing either, and a guess running beside it stays counted.
    func testARightPinWhoseBodyFails_takesBackItsOwnAttemptOnly_andLeavesRunningGuessesCounted() throws {
        let fixture = try EngineFixture(lockout: LockoutPolicy(throttleAfter: 5, maxAttempts: 10))
        let keyId = try fixture.register(user: "alice", pin: pin)
        var running: VaultEngine.CountedAttempt?
        XCTAssertThrowsError(try fixture.engine.withVerifiedPin(
            try fixture.secret(pin), keyId: keyId, owner: fixture.caller.uid, call: fixture.call
        ) { _, _, _ throws(VaultError) in
            do { running = try count(fixture, keyId) } catch { XCTFail("\(error)") }
            throw VaultError.conflict
        }) { XCTAssertEqual($0 as? VaultError, .conflict) }
        XCTAssertEqual(try failures(fixture, keyId), 1, "the guess still running stays counted; the right PIN's own is gone")
        XCTAssertEqual(try settleWrong(fixture, try XCTUnwrap(running)).map(\.isWrongPin), true)
        XCTAssertEqual(try succeed(fixture, try count(fixture, keyId)), 1)
        XCTAssertEqual(fixture.engine.attemptsInFlight.count(on: keyId), 0, "every attempt settled")
    }
}
