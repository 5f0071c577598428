import Foundation
import PinVaultCore
import PinVaultCrypto
import PinVaultSystem
import Synchronization
import XCTest

@testable import PinVaultEngine

/// Unlock sessions in the engine (SECURITY.md "Unlock sessions"): a PIN call that opens
/// a key for its owner uid until a monotonic deadline, Lock, every end, the limits, and
/// no way in for another uid. The clock is injected: expiry is tested to the nanosecond.
final class SessionTests: XCTestCase {
    private let pin = "258046"
    private let wrong = "370591"
    private let other = Caller(uid: 1001, pid: 5151, isAdmin: false)
    private let admin = Caller(uid: 0, pid: 1, isAdmin: true)
    private let message: [UInt8] = Array("sign me".utf8)

    /// A monotonic clock the test moves.
    private final class TestClock: Sendable {
        let nanoseconds = Atomic<UInt64>(1_000_000_000_000)
        func advance(seconds: Double) { nanoseconds.add(UInt64(seconds * 1e9), ordering: .relaxed) }
        var read: @Sendable () -> UInt64 { { self.nanoseconds.load(ordering: .relaxed) } }
    }

    private let clock = TestClock()

    private func fixture(
        lockout: LockoutPolicy = LockoutPolicy(throttleAfter: 5, maxAttempts: 5, onMaxAttempts: .block),
        maxTtl: Int64 = 3600, perUid: Int = 16
    ) throws -> EngineFixture {
        try EngineFixture(lockout: lockout, monotonic: clock.read, sessionMaxTtlSeconds: maxTtl, sessionsPerUid: perUid)
    }

    private func unlock(
        _ f: EngineFixture, _ keyId: KeyID?, user: String = "alice", pin: String? = nil, ttl: Int64 = 60,
        bound: UInt64? = nil, as who: Caller? = nil, isCancelled: @escaping @Sendable () -> Bool = { false }
    ) throws -> Result<VaultResult, VaultError> {
        f.submit(
            .unlock(user: user, keyId: keyId, pin: try f.secret(pin ?? self.pin), ttlSeconds: ttl, boundConnection: bound),
            as: who, isCancelled: isCancelled
        )
    }

    private func sign(_ f: EngineFixture, _ keyId: KeyID, as who: Caller? = nil) -> Result<VaultResult, VaultError> {
        f.submit(.sign(keyId: keyId, message: message, access: .sign), as: who)
    }

    private func isUnlocked(_ f: EngineFixture, _ keyId: KeyID, as who: Caller? = nil) -> Bool {
        if case .success(.signature) = sign(f, keyId, as: who) { return true }
        return false
    }

    private func publicKey(_ f: EngineFixture, _ keyId: KeyID) throws -> [UInt8] {
        try XCTUnwrap(try f.record(keyId)).publicKey
    }

    // MARK: Unlock and Sign

    func testUnlock_thenSign_givesAnEd25519SignatureOfExactlyTheMessage_withoutAnyKDF() throws {
        let f = try fixture()
        let keyId = try f.register(user: "alice", pin: pin)
        guard case .success(.unlocked(let unlocked, _, let cleared)) = try unlock(f, nil) else { return XCTFail("no session") }
        XCTAssertEqual(unlocked, keyId)
        XCTAssertEqual(cleared, 0)
        let evaluations = f.kdfEvaluations
        guard case .success(.signature(let signature)) = sign(f, keyId) else { return XCTFail("not signed") }
        XCTAssertTrue(message.withUnsafeBytes { Ed25519.verify(signature: signature, message: $0, publicKey: try! publicKey(f, keyId)) })
        XCTAssertEqual(f.kdfEvaluations, evaluations, "Sign ran a KDF")
    }

    func testSign_withoutASession_isNotUnlocked() throws {
        let f = try fixture()
        let keyId = try f.register(user: "alice", pin: pin)
        XCTAssertEqual(sign(f, keyId).failure, .notUnlocked)
    }

    func testAnotherUid_cannotSignListOrLock_anotherUidsSession() throws {
        let f = try fixture()
        let keyId = try f.register(user: "alice", pin: pin)
        _ = try unlock(f, keyId)
        XCTAssertEqual(sign(f, keyId, as: other).failure, .notUnlocked, "another uid signed")
        XCTAssertEqual(sign(f, keyId, as: admin).failure, .notUnlocked, "an admin signed with a user's session")
        guard case .success(.unlockedKeys(let keys)) = f.submit(.unlockedKeys(access: .sign), as: other) else { return XCTFail() }
        XCTAssertTrue(keys.isEmpty, "another uid sees the identity")
        guard case .success(.locked(let locked)) = f.submit(.lock(keyId: keyId, access: nil), as: other) else { return XCTFail() }
        XCTAssertTrue(locked.isEmpty)
        _ = f.submit(.lock(keyId: nil, access: nil), as: other)
        XCTAssertTrue(isUnlocked(f, keyId), "another uid's Lock ended the session")
        // Nor can it unlock it with the right PIN: the credential is not its.
        XCTAssertEqual(try unlock(f, keyId, as: other).failure, .noSuchCredential)
    }

    func testUnlockedKeys_listTheCallersSessions_withUserLabelAndKey() throws {
        let f = try fixture()
        let keyId = try f.register(user: "alice", pin: pin, label: "laptop")
        _ = try f.register(user: "bob", pin: pin)
        _ = try unlock(f, keyId)
        guard case .success(.unlockedKeys(let keys)) = f.submit(.unlockedKeys(access: .sign)) else { return XCTFail() }
        XCTAssertEqual(keys.map(\.keyId), [keyId])
        XCTAssertEqual(keys.first?.user, "alice")
        XCTAssertEqual(keys.first?.label, "laptop")
        XCTAssertEqual(keys.first?.publicKey, try publicKey(f, keyId))
    }

    func testAWrongPinInUnlock_countsLikeAnyOther_andTheRightOneReportsWhatItCleared() throws {
        let f = try fixture()
        let keyId = try f.register(user: "alice", pin: pin)
        XCTAssertEqual(try unlock(f, keyId, pin: wrong).failure, .wrongPin(remainingAttempts: 4))
        XCTAssertEqual(try unlock(f, keyId, pin: wrong).failure, .wrongPin(remainingAttempts: 3))
        XCTAssertEqual(try f.record(keyId)?.failedAttempts, 2)
        XCTAssertFalse(isUnlocked(f, keyId))
        guard case .success(.unlocked(_, _, let cleared)) = try unlock(f, keyId) else { return XCTFail("no session") }
        XCTAssertEqual(cleared, 2)
        XCTAssertEqual(try f.record(keyId)?.failedAttempts, 0)
    }

    func testAThrottledCredential_isRefusedWithoutAKDF() throws {
        let f = try fixture(lockout: LockoutPolicy(throttleAfter: 1, throttleBaseSeconds: 600, maxAttempts: 5, onMaxAttempts: .block))
        let keyId = try f.register(user: "alice", pin: pin)
        _ = try unlock(f, keyId, pin: wrong)
        let evaluations = f.kdfEvaluations
        guard case .failure(.lockedOut) = try unlock(f, keyId) else { return XCTFail("not throttled") }
        XCTAssertEqual(f.kdfEvaluations, evaluations)
    }

    func testUnlock_upgradesAWeakRecord_onUse() throws {
        let f = try EngineFixture(
            lockout: LockoutPolicy(), kdf: KDFParameters(opslimit: 2, memlimit: 8192), monotonic: clock.read
        )
        let keyId = try f.register(user: "alice", pin: pin)
        let weak = KDFParameters(opslimit: 1, memlimit: 8192)
        try f.store.write { writer in
            guard var record = try writer.credential(keyId: keyId) else { return }
            let seed = try SeedSealer.open(record.sealed, pin: try f.secret(pin), pepper: f.engine.pepper)
            record.sealed = try SeedSealer.seal(
                seed: seed, pin: try f.secret(pin), pepper: f.engine.pepper, purpose: record.purpose, algorithm: .ed25519, ownerUid: record.ownerUid,
                user: record.user, keyId: keyId, parameters: weak
            )
            try writer.update(record)
        }
        XCTAssertEqual(try f.record(keyId)?.sealed.header.kdf, weak)
        guard case .success(.unlocked) = try unlock(f, keyId) else { return XCTFail("no session") }
        XCTAssertEqual(try f.record(keyId)?.sealed.header.kdf, KDFParameters(opslimit: 2, memlimit: 8192), "not upgraded on use")
        XCTAssertTrue(isUnlocked(f, keyId))
    }

    // MARK: Time

    func testASession_endsAtItsDeadline_onTheMonotonicClock() throws {
        let f = try fixture()
        let keyId = try f.register(user: "alice", pin: pin)
        _ = try unlock(f, keyId, ttl: 10)
        clock.advance(seconds: 9.999)
        XCTAssertTrue(isUnlocked(f, keyId))
        clock.advance(seconds: 0.001)
        XCTAssertFalse(isUnlocked(f, keyId), "a session outlived its TTL")
        guard case .success(.credentials(let views)) = f.submit(.list(user: nil, ownerUid: nil)) else { return XCTFail() }
        XCTAssertNil(views.first?.unlockedUntil)
        XCTAssertEqual(f.engine.sessions.count, 1, "expired but not yet swept")
        f.engine.endExpiredSessions()
        XCTAssertEqual(f.engine.sessions.count, 0, "the sweep left an expired session")
    }

    func testTheTTL_isCutToMaxTtlSeconds() throws {
        let f = try fixture(maxTtl: 60)
        let keyId = try f.register(user: "alice", pin: pin)
        let before = WallClock.seconds()
        guard case .success(.unlocked(_, let until, _)) = try unlock(f, keyId, ttl: 100_000) else { return XCTFail() }
        XCTAssertLessThanOrEqual(until, WallClock.seconds() + 60)
        XCTAssertGreaterThanOrEqual(until, before + 60)
        clock.advance(seconds: 60)
        XCTAssertFalse(isUnlocked(f, keyId))
    }

    func testUnlockingAnUnlockedKey_extendsIt_afterANewPinCheck() throws {
        let f = try fixture()
        let keyId = try f.register(user: "alice", pin: pin)
        _ = try unlock(f, keyId, ttl: 10)
        clock.advance(seconds: 8)
        let evaluations = f.kdfEvaluations
        _ = try unlock(f, keyId, ttl: 10)
        XCTAssertEqual(f.kdfEvaluations, evaluations + 1, "an extension checked no PIN")
        clock.advance(seconds: 9)
        XCTAssertTrue(isUnlocked(f, keyId), "the extension did not extend")
        clock.advance(seconds: 1)
        XCTAssertFalse(isUnlocked(f, keyId))
        XCTAssertEqual(f.engine.sessions.count, 1, "an extension opened a second session")
    }

    func testListShowsUnlockedUntil_whileTheSessionLives() throws {
        let f = try fixture()
        let keyId = try f.register(user: "alice", pin: pin)
        guard case .success(.unlocked(_, let until, _)) = try unlock(f, keyId, ttl: 120) else { return XCTFail() }
        guard case .success(.credentials(let views)) = f.submit(.list(user: nil, ownerUid: nil)) else { return XCTFail() }
        XCTAssertEqual(views.first?.unlockedUntil, until, "List and Unlock disagree on the end")
    }

    func testMaxTtlZero_refusesUnlock_withPermissionDenied_beforeAnyPin() throws {
        let f = try fixture(maxTtl: 0)
        let keyId = try f.register(user: "alice", pin: pin)
        XCTAssertEqual(try unlock(f, keyId, pin: wrong).failure, .permissionDenied)
        XCTAssertEqual(try f.record(keyId)?.failedAttempts, 0)
    }

    // MARK: Limits

    func testTheUidsSessionCap_refusesAnotherBeforeThePin_butExtendsAnOpenOne() throws {
        let f = try fixture(perUid: 2)
        let keys = try (0..<3).map { try f.register(user: "alice", pin: pin, label: "k\($0)") }
        _ = try unlock(f, keys[0])
        _ = try unlock(f, keys[1])
        let evaluations = f.kdfEvaluations
        XCTAssertEqual(try unlock(f, keys[2], pin: wrong).failure, .tooManySessions(limit: 2))
        XCTAssertEqual(f.kdfEvaluations, evaluations, "a refused Unlock ran the KDF")
        XCTAssertEqual(try f.record(keys[2])?.failedAttempts, 0, "a refused Unlock counted")
        guard case .success(.unlocked) = try unlock(f, keys[1]) else { return XCTFail("an open session could not be extended") }
        // Another uid has its own share.
        let theirs = try EngineFixture.registerAs(f, other, user: "carol", pin: pin)
        guard case .success(.unlocked) = try unlock(f, theirs, user: "carol", as: other) else { return XCTFail() }
    }

    /// One person holding 64 uids (a subordinate range) fills what the table lets each
    /// uid hold: 64 × 16 = 1024, every place. Another uid still gets its sessions, and an
    /// admin too: the table keeps a share for uids that hold few and for admins.
    func testSixtyFourUidsFillingTheTable_leaveAnotherUidAndAnAdminTheirSessions() throws {
        let table = SessionTable(limits: .init(maxTtlSeconds: 3600, maxPerUid: 16), now: clock.read)
        var opened = 0
        for uid in UInt32(61001)...61064 {
            for _ in 0..<16 where (try? open(table, owner: uid, isAdmin: false)) != nil { opened += 1 }
        }
        print("sessions: 64 uids opened \(opened) of the table's \(SessionTable.maxTotal)")
        XCTAssertGreaterThan(opened, SessionTable.maxTotal / 2, "the uids did fill the table")
        for newcomer in UInt32(62001)...62008 {
            XCTAssertNoThrow(try open(table, owner: newcomer, isAdmin: false), "uid \(newcomer) got no session")
            XCTAssertNoThrow(try open(table, owner: newcomer, isAdmin: false), "uid \(newcomer) got one session only")
        }
        XCTAssertNoThrow(try open(table, owner: 0, isAdmin: true), "root got no session")
        XCTAssertNoThrow(try open(table, owner: 1500, isAdmin: true), "an admin_group member got no session")
        XCTAssertLessThanOrEqual(table.count, SessionTable.maxTotal)
    }

    /// A session of `owner` on a fresh key in `table`.
    private func open(_ table: SessionTable, owner: UInt32, isAdmin: Bool) throws {
        let seed = try SecretBytes.random(count: 32)
        let key = try ProtectedSigningKey(algorithm: .ed25519, seed: seed)
        _ = try table.open(
            keyId: try KeyID(publicKey: key.publicKey), owner: owner, isAdmin: isAdmin, user: "u", label: nil,
            purpose: .authenticate, key: key, ttlNanoseconds: 60_000_000_000, wallUntil: 0, boundConnection: nil,
            abandoned: { false }
        )
    }

    // MARK: Ends

    func testLock_endsOneSessionOrAll_andNamesThem() throws {
        let f = try fixture()
        let a = try f.register(user: "alice", pin: pin, label: "a")
        let b = try f.register(user: "alice", pin: pin, label: "b")
        _ = try unlock(f, a)
        _ = try unlock(f, b)
        guard case .success(.locked(let one)) = f.submit(.lock(keyId: a, access: nil)) else { return XCTFail() }
        XCTAssertEqual(one, [a])
        XCTAssertFalse(isUnlocked(f, a))
        XCTAssertTrue(isUnlocked(f, b))
        _ = try unlock(f, a)
        guard case .success(.locked(let all)) = f.submit(.lock(keyId: nil, access: nil)) else { return XCTFail() }
        XCTAssertEqual(Set(all), [a, b])
        XCTAssertFalse(isUnlocked(f, a) || isUnlocked(f, b))
    }

    func testABoundSession_endsWithItsConnection_only() throws {
        let f = try fixture()
        let keyId = try f.register(user: "alice", pin: pin)
        _ = try unlock(f, keyId, bound: 7)
        f.engine.endSessions(boundTo: 8)
        XCTAssertTrue(isUnlocked(f, keyId))
        f.engine.endSessions(boundTo: 7)
        XCTAssertFalse(isUnlocked(f, keyId))
    }

    /// The engine drops a cancelled call unanswered, so this is checked at the table: the
    /// cancellation is read under the table's lock, as the session would open.
    func testAnUnlockWhoseConnectionClosed_opensNoSession() throws {
        let f = try fixture()
        let keyId = try f.register(user: "alice", pin: pin)
        let key = try ProtectedSigningKey(algorithm: .ed25519, seed: try SecretBytes.random(count: 32))
        XCTAssertThrowsError(try f.engine.sessions.open(
            keyId: keyId, owner: f.caller.uid, isAdmin: false, user: "alice", label: nil, purpose: .authenticate, key: key,
            ttlNanoseconds: 1_000_000_000, wallUntil: 0, boundConnection: 9, abandoned: { true }
        )) { XCTAssertEqual($0 as? SessionTable.Refusal, .abandoned) }
        XCTAssertEqual(f.engine.sessions.count, 0, "a session opened for a connection that had gone")
        XCTAssertFalse(isUnlocked(f, keyId))
    }

    /// Through the engine: an Unlock whose peer leaves once its PIN is being checked (the
    /// call turns cancelled when the KDF has run) is not answered, opens no session, and
    /// leaves nothing counted: no answer can mean Busy or anything else to anyone.
    func testAnUnlockAbandonedDuringItsKDF_isNotAnswered_opensNothing_andCountsNothing() throws {
        let f = try fixture()
        let keyId = try f.register(user: "alice", pin: pin)
        let before = f.kdfEvaluations
        let engine = f.engine
        let answered = ConditionLock()
        nonisolated(unsafe) var answers: [Result<VaultResult, VaultError>] = []
        f.engine.submit(
            .unlock(user: "alice", keyId: keyId, pin: try f.secret(pin), ttlSeconds: 60, boundConnection: 9),
            from: f.caller, isCancelled: { engine.stats.snapshot(kdf: .init(queued: 0, running: 0)).kdfEvaluations > before }
        ) { result in answered.withLock { answers.append(result) } }
        // One KDF thread (the fixture's): once an Authenticate after it is answered, the
        // Unlock's job, and whatever it answered, is over.
        XCTAssertNotNil(try f.authenticate(user: "alice", pin: pin).get())
        XCTAssertEqual(answered.withLock { answers.count }, 0, "an abandoned Unlock was answered: \(answers)")
        XCTAssertEqual(f.engine.sessions.count, 0, "a session opened for a call nobody waits for")
        XCTAssertEqual(try f.record(keyId)?.failedAttempts, 0, "the abandoned Unlock's attempt stayed counted")
        XCTAssertFalse(isUnlocked(f, keyId))
    }

    /// A key id is one credential's, so one owner's; the table checks it all the same
    /// before it extends a session, and leaves the owner's session as it was.
    func testExtendingASession_asAnotherOwner_isRefused_andLeavesTheOwnersSessionAlone() throws {
        let f = try fixture()
        let keyId = try f.register(user: "alice", pin: pin)
        guard case .success(.unlocked(_, let until, _)) = try unlock(f, keyId, ttl: 60, bound: 7) else { return XCTFail() }
        let key = try ProtectedSigningKey(algorithm: .ed25519, seed: try SecretBytes.random(count: 32))
        XCTAssertEqual(f.engine.sessions.admits(keyId, owner: other.uid, isAdmin: false), .otherOwner)
        XCTAssertThrowsError(try f.engine.sessions.open(
            keyId: keyId, owner: other.uid, isAdmin: false, user: "alice", label: nil, purpose: .authenticate, key: key,
            ttlNanoseconds: 3_600_000_000_000, wallUntil: until + 3540, boundConnection: 9, abandoned: { false }
        )) { XCTAssertEqual($0 as? SessionTable.Refusal, .otherOwner) }
        XCTAssertEqual(f.engine.sessions.unlockedUntil(keyId, owner: f.caller.uid, wallNow: f.engine.now()), until)
        XCTAssertNil(f.engine.sessions.unlockedUntil(keyId, owner: other.uid, wallNow: f.engine.now()))
        f.engine.endSessions(boundTo: 9)
        XCTAssertTrue(isUnlocked(f, keyId), "another owner's Unlock rebound the session to its connection")
        f.engine.endSessions(boundTo: 7)
        XCTAssertFalse(isUnlocked(f, keyId))
    }

    func testChangePin_endsTheSession() throws {
        let f = try fixture()
        let keyId = try f.register(user: "alice", pin: pin)
        _ = try unlock(f, keyId)
        _ = f.submit(.changePin(user: "alice", keyId: keyId, currentPin: try f.secret(pin), newPin: try f.secret("370592")))
        XCTAssertFalse(isUnlocked(f, keyId))
    }

    func testBeginUnregister_endsTheSession() throws {
        let f = try fixture()
        let keyId = try f.register(user: "alice", pin: pin)
        _ = try unlock(f, keyId)
        guard case .success = f.submit(.beginUnregister(user: "alice", keyId: keyId, pin: try f.secret(pin))) else { return XCTFail() }
        XCTAssertFalse(isUnlocked(f, keyId))
    }

    func testWipe_endsTheSessionsOfTheAccount_andNoOther() throws {
        let f = try fixture()
        let a = try f.register(user: "alice", pin: pin)
        let b = try f.register(user: "bob", pin: pin)
        _ = try unlock(f, a)
        _ = try unlock(f, b, user: "bob")
        guard case .success = f.submit(.wipe(user: "alice", keyId: nil, pin: try f.secret(pin), ownerUid: nil)) else { return XCTFail() }
        XCTAssertFalse(isUnlocked(f, a))
        XCTAssertTrue(isUnlocked(f, b))
    }

    func testABlockByWrongPins_endsTheSession() throws {
        let f = try fixture(lockout: LockoutPolicy(throttleAfter: 5, maxAttempts: 3, onMaxAttempts: .block))
        let keyId = try f.register(user: "alice", pin: pin)
        _ = try unlock(f, keyId)
        for _ in 0..<2 { _ = f.submit(.authenticate(user: "alice", keyId: keyId, pin: try f.secret(wrong), challenge: [1], ownerUid: nil)) }
        XCTAssertTrue(isUnlocked(f, keyId), "a wrong PIN short of the block ended the session")
        XCTAssertEqual(
            f.submit(.authenticate(user: "alice", keyId: keyId, pin: try f.secret(wrong), challenge: [1], ownerUid: nil)).failure,
            .credentialBlocked
        )
        XCTAssertFalse(isUnlocked(f, keyId))
    }

    func testAWipeByWrongPins_endsTheSession() throws {
        let f = try fixture(lockout: LockoutPolicy(throttleAfter: 5, maxAttempts: 2, onMaxAttempts: .wipe))
        let keyId = try f.register(user: "alice", pin: pin)
        _ = try unlock(f, keyId)
        _ = try unlock(f, keyId, pin: wrong)
        XCTAssertEqual(try unlock(f, keyId, pin: wrong).failure, .credentialWiped)
        XCTAssertFalse(isUnlocked(f, keyId))
    }

    /// Unblock changes only a blocked credential, which has no session (the block ended
    /// it): an open session stays open (`AdminUnblockTests`).
    func testUnblock_ofAnUnlockedCredential_changesNothing_andTheSessionStays() throws {
        let f = try fixture()
        let keyId = try f.register(user: "alice", pin: pin)
        _ = try unlock(f, keyId)
        guard case .success = f.submit(.unblock(ownerUid: f.caller.uid, user: "alice", keyId: keyId), as: admin) else { return XCTFail() }
        XCTAssertTrue(isUnlocked(f, keyId))
    }

    func testReset_endsEverySession() throws {
        let f = try fixture()
        let keyId = try f.register(user: "alice", pin: pin)
        _ = try unlock(f, keyId)
        guard case .success = f.submit(.reset, as: admin) else { return XCTFail() }
        XCTAssertFalse(isUnlocked(f, keyId))
        XCTAssertEqual(f.engine.sessions.count, 0)
    }

    func testShutdown_endsEverySession_andOpensNoMore() throws {
        let f = try fixture()
        let keyId = try f.register(user: "alice", pin: pin)
        _ = try unlock(f, keyId)
        f.engine.shutdown()
        XCTAssertEqual(f.engine.sessions.count, 0)
        XCTAssertFalse(isUnlocked(f, keyId))
    }

    // MARK: The loop's share

    func testTheSigningBudget_letsAUidSignInlineForItsShareOfEachWindow() {
        var budget = SigningBudget()
        XCTAssertTrue(budget.allows(1, at: 100))
        budget.charge(1, SigningBudget.share)
        XCTAssertFalse(budget.allows(1, at: 200), "a uid past the loop's share still signs on the loop")
        XCTAssertTrue(budget.allows(1, at: 100 + SigningBudget.window), "the share did not come back with the next window")
    }

    /// With nothing else waiting for the loop, a hand-off spares no one and only adds two
    /// wake-ups to the signature: a uid past the share still signs inline then, and what
    /// it signs so costs it nothing; once others wait, the share holds again.
    func testAUidPastTheShare_signsInlineWhileNothingElseWaits_andOffTheLoopOnceSomethingDoes() {
        var budget = SigningBudget()
        XCTAssertTrue(budget.allows(1, at: 100, othersWaiting: false))
        budget.charge(1, 10 * SigningBudget.share, othersWaiting: false)
        XCTAssertTrue(budget.allows(1, at: 200, othersWaiting: true), "signatures nobody waited behind used up the share")
        budget.charge(1, SigningBudget.share, othersWaiting: true)
        XCTAssertFalse(budget.allows(1, at: 300, othersWaiting: true), "a uid past the share signs on the loop while others wait")
        XCTAssertTrue(budget.allows(1, at: 300, othersWaiting: false), "a signature nobody waits behind left the loop")
    }

    /// The loop's share is one for every uid together: 64 uids signing as fast as they
    /// can take 5 ms of a 10 ms window between them, not 64 × 5 ms. Counted with the
    /// budget's own clock, as a loaded machine could stretch any real one.
    func testSixtyFourUids_shareTheLoopsSigningBudget_ratherThanAddUpTheirOwn() {
        var budget = SigningBudget()
        let signature: UInt64 = 30_000  // what an Ed25519 signature with its mprotects costs
        var inline: [UInt32: UInt64] = [:]
        let start: UInt64 = 1_000_000_000
        for round in 0..<1000 {
            for uid in UInt32(61001)...61064 where budget.allows(uid, at: start + UInt64(round)) {
                budget.charge(uid, signature)
                inline[uid, default: 0] += signature
            }
        }
        let total = inline.values.reduce(0, +)
        print("signing budget: 64 uids signed \(total / 1000) µs inline in one window of \(SigningBudget.window / 1000) µs")
        XCTAssertLessThanOrEqual(total, SigningBudget.share + signature, "the uids together took more than the loop's share")
        XCTAssertGreaterThan(inline.count, 1, "one uid took the whole share")
        XCTAssertTrue(budget.allows(62001, at: start + SigningBudget.window), "the next window did not come")
    }

    func testASignatureOffTheLoop_signsTheSame() throws {
        let f = try fixture()
        let keyId = try f.register(user: "alice", pin: pin)
        _ = try unlock(f, keyId)
        guard case .signed(let signature) = f.engine.sessions.sign(message, keyId: keyId, owner: f.caller.uid, access: .sign, context: .plain, inline: false)
        else { return XCTFail("not signed") }
        XCTAssertTrue(message.withUnsafeBytes { Ed25519.verify(signature: signature, message: $0, publicKey: try! publicKey(f, keyId)) })
    }
}

extension Result where Failure == VaultError {
    /// The error, or nil on success.
    var failure: VaultError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

extension EngineFixture {
    /// Registers a credential owned by `who`.
    static func registerAs(_ f: EngineFixture, _ who: Caller, user: String, pin: String) throws -> KeyID {
        guard case .success(.credential(let credential)) = f.submit(.register(user: user, pin: try f.secret(pin), label: nil, purpose: .authenticate), as: who)
        else { throw POSIXError(.EINVAL) }
        return credential.keyId
    }
}
