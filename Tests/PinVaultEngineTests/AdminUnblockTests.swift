import PinVaultCore
import PinVaultCrypto
import XCTest

@testable import PinVaultEngine

/// An admin cannot turn Unblock into unlimited guessing (SECURITY.md, "Admins and the
/// lockout"): the wrong PINs since the owner's last success are never reset by an
/// admin, the owner's next right PIN reports all of them, past twice `max_attempts` of
/// them only deleting the credential is left, and Unblock of a credential that is not
/// blocked changes nothing. The admin here is a member of `access.admin_group`, which
/// may pass `ownerUid` to Authenticate (as pam_pinvault does) and call Unblock.
final class AdminUnblockTests: XCTestCase {
    private let pin = "258046"
    private let wrong = "370591"
    private let groupMember = Caller(uid: 1500, pid: 7070, isAdmin: true)
    /// The shipped defaults: 4 guesses free, then 30 s doubling, blocked at the 10th.
    private let lockout = LockoutPolicy()
    private let clock = SteppedClock()

    private func fixture() throws -> EngineFixture {
        try EngineFixture(lockout: lockout, now: clock.now)
    }

    /// One wrong PIN as the group member, on the owner's credential; a wait is sat out
    /// first, as a patient guesser would (the clock is the test's). The answer to the
    /// PIN, or the refusal that came instead of a check.
    private func guess(_ f: EngineFixture, _ keyId: KeyID) throws -> VaultError? {
        while true {
            let answer = f.submit(
                .authenticate(user: "alice", keyId: keyId, pin: try f.secret(wrong), challenge: [7], ownerUid: f.caller.uid),
                as: groupMember
            )
            guard case .failure(let error) = answer else {
                XCTFail("a wrong PIN signed")
                return nil
            }
            guard case .lockedOut(let seconds) = error else { return error }
            clock.step(by: seconds)
        }
    }

    private func unblock(_ f: EngineFixture, _ keyId: KeyID) -> Result<VaultResult, VaultError> {
        f.submit(.unblock(ownerUid: f.caller.uid, user: "alice", keyId: keyId), as: groupMember)
    }

    /// The attack of the review: guess, Unblock, repeat. Each Unblock used to clear the
    /// count, so 50 rounds were 50 PINs checked and counting had no end.
    func testFiftyRoundsOfGuessAndUnblock_checkTwiceMaxAttemptsPins_thenEndInARefusal() throws {
        let f = try fixture()
        let keyId = try f.register(user: "alice", pin: pin)
        let before = f.kdfEvaluations
        var guesses: [VaultError?] = []
        var unblocks: [Result<VaultResult, VaultError>] = []
        for _ in 0..<50 {
            guesses.append(try guess(f, keyId))
            unblocks.append(unblock(f, keyId))
        }
        let checked = f.kdfEvaluations - before
        let refusals = unblocks.filter { $0.failure == .unblockRefused(wrongPins: 2 * lockout.maxAttempts) }.count
        print("admin guess-and-unblock: \(checked) PINs checked in 50 rounds, \(refusals) Unblocks refused")
        XCTAssertEqual(checked, 2 * lockout.maxAttempts, "PINs checked between two successes of the owner")
        XCTAssertEqual(guesses.filter { $0?.isWrongPin == true }.count, 2 * lockout.maxAttempts - 2, "each block answers CredentialBlocked")
        XCTAssertEqual(guesses.last, .credentialBlocked)
        XCTAssertEqual(unblocks.last?.failure, .unblockRefused(wrongPins: 2 * lockout.maxAttempts))
        // Rounds 1 to 9 found it active or throttled (nothing changed), round 10 blocked
        // (revived), 11 to 19 active or throttled again, 20 blocked for good.
        guard case .success(.credential(let revived)) = unblocks[lockout.maxAttempts - 1] else { return XCTFail() }
        XCTAssertEqual(revived.state, .active)
        XCTAssertEqual(unblocks.prefix(2 * lockout.maxAttempts - 1).filter { $0.failure != nil }.count, 0)
        XCTAssertEqual(refusals, 50 - (2 * lockout.maxAttempts - 1), "every Unblock from the 20th wrong PIN on")
        let record = try XCTUnwrap(try f.record(keyId))
        XCTAssertEqual(record.failedAttempts, lockout.maxAttempts, "it stays blocked")
        XCTAssertEqual(record.wrongPinsSinceSuccess, 2 * lockout.maxAttempts)

        // The owner's right PIN is no longer checked: only deleting it is left.
        XCTAssertEqual(try f.authenticate(user: "alice", pin: pin).failure, .credentialBlocked)
        guard case .success(.wiped(_, let deleted, _)) = f.submit(
            .wipe(user: "alice", keyId: nil, pin: nil, ownerUid: f.caller.uid), as: groupMember
        ) else { return XCTFail("an admin could not delete it") }
        XCTAssertEqual(deleted, [keyId])
    }

    /// Whatever Unblocks came between, the owner's right PIN reports every wrong PIN
    /// tried since their last success; and the next guesser starts from none.
    func testTheOwnersNextSuccess_reportsEveryWrongPin_acrossUnblocks() throws {
        let f = try fixture()
        let keyId = try f.register(user: "alice", pin: pin)
        for _ in 0..<lockout.maxAttempts { _ = try guess(f, keyId) }
        guard case .success(.credential(let revived)) = unblock(f, keyId) else { return XCTFail("not unblocked") }
        XCTAssertEqual(revived.state, .active)
        XCTAssertEqual(revived.failedAttempts, 0)
        for _ in 0..<3 { XCTAssertEqual(try guess(f, keyId)?.isWrongPin, true) }
        guard case .success = unblock(f, keyId) else { return XCTFail() }

        guard case .success(.authenticated(_, _, _, _, let cleared)) = try f.authenticate(user: "alice", pin: pin) else {
            return XCTFail("the owner's PIN did not open it")
        }
        XCTAssertEqual(cleared, lockout.maxAttempts + 3, "the owner was not told of every wrong PIN")
        XCTAssertEqual(try f.record(keyId)?.wrongPinsSinceSuccess, 0)
        guard case .success(.authenticated(_, _, _, _, let none)) = try f.authenticate(user: "alice", pin: pin) else {
            return XCTFail()
        }
        XCTAssertEqual(none, 0)
    }

    /// An Unblock of an active or throttled credential keeps its count, its wait and its
    /// session: it is not a reset an admin may hand out.
    func testUnblockingACredentialThatIsNotBlocked_changesNothing() throws {
        let f = try fixture()
        let keyId = try f.register(user: "alice", pin: pin)
        _ = f.submit(.unlock(user: "alice", keyId: keyId, pin: try f.secret(pin), ttlSeconds: 60, boundConnection: nil))
        for _ in 0..<6 { _ = try guess(f, keyId) }
        let throttled = try XCTUnwrap(try f.record(keyId))
        XCTAssertEqual(throttled.failedAttempts, 6)
        XCTAssertNotNil(throttled.lockedUntil)

        guard case .success(.credential(let view)) = unblock(f, keyId) else { return XCTFail("Unblock failed") }
        XCTAssertEqual(view.state, .throttled)
        XCTAssertEqual(view.failedAttempts, 6)
        XCTAssertEqual(try f.record(keyId), throttled, "Unblock changed a credential that was not blocked")
        guard case .success(.signature) = f.submit(.sign(keyId: keyId, message: [1], access: .sign)) else {
            return XCTFail("Unblock of an unblocked credential ended its session")
        }
    }
}
