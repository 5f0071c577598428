import Foundation
import PinVaultCore
import PinVaultCrypto
import PinVaultSystem
import XCTest

@testable import PinVaultEngine

/// The KDF queue keeps places for admins (SECURITY.md, "A user with many uids"): uids
/// each within `kdf.queue_per_uid` can together fill `kdf.queue_max`, but not the last
/// places, so root's PIN call is queued instead of answered Busy.
final class AdminReserveTests: XCTestCase {
    private let pin = "258046"

    func testUidsFillingTheKDFQueue_leaveAnAdminAPlace() throws {
        // 8 places, 2 per uid: the last 2 are kept for admins.
        let fixture = try EngineFixture(lockout: LockoutPolicy(), adjust: { settings in
            settings.kdfQueueMax = 8
            settings.kdfQueuePerUid = 2
        })
        let uids: [UInt32] = Array(2001...2004)
        let callers = uids.map { Caller(uid: $0, pid: 1, isAdmin: false) }
        let root = Caller(uid: 0, pid: 1, isAdmin: true)
        for caller in callers + [root] { _ = try fixture.register(user: "alice", pin: pin, as: caller) }

        // The one KDF thread is busy until the gate opens.
        let gate = ConditionLock()
        let open = Flag()
        let blocking = fixture.engine.kdfPool.submit(uid: 9999) {
            gate.withLock { while !open.value { gate.wait() } }
        }
        XCTAssertEqual(blocking, WorkPool.Admission.accepted)
        while fixture.engine.kdfPool.snapshot.running == 0 { usleep(1000) }

        let answers = Answers()
        for caller in callers {
            for _ in 0..<2 { answers.submit(fixture, caller: caller, pin: pin) }
        }
        // Every call has been admitted or refused once the store queue is idle.
        let deadline = Date().addingTimeInterval(10)
        while answers.busy + fixture.engine.kdfPool.snapshot.queued < 8 && Date() < deadline { usleep(1000) }
        let queued = fixture.engine.kdfPool.snapshot.queued
        print("admin reserve: 8 calls of 4 uids: \(queued) queued, \(answers.busy) Busy")
        XCTAssertEqual(queued, 6, "non-admins took the admins' places")
        XCTAssertEqual(answers.busy, 2)

        // Root's call: queued, or answered Busy (before the reserve).
        let busyBefore = answers.busy
        answers.submit(fixture, caller: root, pin: pin)
        while answers.busy == busyBefore && fixture.engine.kdfPool.snapshot.queued == queued && Date() < deadline {
            usleep(1000)
        }
        XCTAssertEqual(answers.busy, busyBefore, "root was answered Busy")
        XCTAssertEqual(fixture.engine.kdfPool.snapshot.queued, queued + 1, "root's call waits for the KDF")

        gate.withLock {
            open.value = true
            gate.broadcast()
        }
        while answers.count < 9 && Date() < deadline { usleep(1000) }
        XCTAssertEqual(answers.count, 9)
        XCTAssertEqual(answers.succeeded, 7, "the six queued calls and root's")
    }
}

private final class Flag: @unchecked Sendable {
    var value = false
}

/// The answers of calls submitted to the engine, from its pool threads.
private final class Answers: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result<VaultResult, VaultError>] = []

    func submit(_ fixture: EngineFixture, caller: Caller, pin: String) {
        guard let secret = try? fixture.secret(pin) else { return }
        let request = VaultRequest.authenticate(user: "alice", keyId: nil, pin: secret, challenge: [1], ownerUid: nil)
        fixture.engine.submit(request, from: caller, isCancelled: { false }) { [self] result in
            lock.lock()
            results.append(result)
            lock.unlock()
        }
    }

    var count: Int { lock.lock(); defer { lock.unlock() }; return results.count }
    var busy: Int {
        lock.lock(); defer { lock.unlock() }
        return results.filter { if case .failure(.busy) = $0 { true } else { false } }.count
    }
    var succeeded: Int {
        lock.lock(); defer { lock.unlock() }
        return results.filter { if case .success = $0 { true } else { false } }.count
    }
}
