import Glibc
import PinVaultSystem
import XCTest

@testable import PinVaultEngine

final class WorkPoolTests: XCTestCase {
    /// A latch the test opens to let blocked jobs finish.
    final class Gate: @unchecked Sendable {
        private let lock = ConditionLock()
        private var open = false
        private(set) var entered = 0

        func pass() {
            lock.withLock {
                entered += 1
                lock.broadcast()
                while !open { lock.wait() }
            }
        }

        func release() {
            lock.withLock {
                open = true
                lock.broadcast()
            }
        }

        func waitUntilEntered(_ count: Int) {
            lock.withLock {
                while entered < count { lock.wait() }
            }
        }
    }

    func testSubmit_pastQueueMax_answersBusyAtOnce() throws {
        let pool = try WorkPool(name: "t", threads: 1, queueMax: 1, perUidMax: 10)
        let gate = Gate()
        XCTAssertEqual(pool.submit(uid: 1) { gate.pass() }, .accepted)
        gate.waitUntilEntered(1)  // running, so the queue is empty again
        XCTAssertEqual(pool.submit(uid: 2) { gate.pass() }, .accepted)  // waits
        guard case .busy(let retry) = pool.submit(uid: 3, {}) else {
            return XCTFail("a full queue must answer busy")
        }
        XCTAssertGreaterThan(retry, 0)
        gate.release()
        pool.shutdown()
    }

    func testSubmit_pastPerUidQuota_refusesThatUidOnly() throws {
        let pool = try WorkPool(name: "t", threads: 1, queueMax: 10, perUidMax: 2)
        let gate = Gate()
        XCTAssertEqual(pool.submit(uid: 7) { gate.pass() }, .accepted)
        XCTAssertEqual(pool.submit(uid: 7) { gate.pass() }, .accepted)
        if case .accepted = pool.submit(uid: 7, {}) {
            XCTFail("a third job of uid 7 must be refused")
        }
        XCTAssertEqual(pool.submit(uid: 8) { gate.pass() }, .accepted, "another uid still gets in")
        gate.release()
        pool.shutdown()
    }

    func testJobs_runAtMostThreadsAtOnce() throws {
        let pool = try WorkPool(name: "t", threads: 2, queueMax: 10, perUidMax: 10)
        let gate = Gate()
        for uid in 0..<4 {
            XCTAssertEqual(pool.submit(uid: UInt32(uid)) { gate.pass() }, .accepted)
        }
        gate.waitUntilEntered(2)
        usleep(50_000)
        XCTAssertEqual(pool.snapshot, WorkPool.Snapshot(queued: 2, running: 2))
        gate.release()
        pool.shutdown()
        XCTAssertEqual(gate.entered, 4, "shutdown lets queued jobs run")
    }

    func testShutdown_refusesNewJobs() throws {
        let pool = try WorkPool(name: "t", threads: 1, queueMax: 10, perUidMax: 10)
        pool.shutdown()
        XCTAssertEqual(pool.submit(uid: 0, {}), .stopping, "a stopped pool takes no job, and says it stops")
    }
}
