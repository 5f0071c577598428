import Synchronization
import XCTest

@testable import PinVaultEngine

/// A waiting job whose peer hung up (`isCancelled`) gives back its slots and its
/// closure before any worker reaches it, never runs, and never counts in the mean
/// job time behind the `Busy` retry hint. Each test holds the only worker in a
/// `Gate`, so the order of events is the test's, not the scheduler's.
final class WorkPoolCancellationTests: XCTestCase {
    typealias Gate = WorkPoolTests.Gate

    /// A hang-up flag, as `ReplyRoute` keeps one.
    final class HangUp: Sendable {
        private let gone = Atomic<Bool>(false)
        var isCancelled: Bool { gone.load(ordering: .acquiring) }
        func happen() { gone.store(true, ordering: .releasing) }
    }

    /// What a job's closure holds (a request's PIN, in the daemon).
    final class Held: Sendable {}

    /// Counts the jobs that ran.
    final class Runs: Sendable {
        private let count = Atomic<Int>(0)
        var value: Int { count.load(ordering: .relaxed) }
        func add() { count.add(1, ordering: .relaxed) }
    }

    func testACancelledWaitingJob_givesBackItsUidSlot_soThatUidIsNotRefused() throws {
        let pool = try WorkPool(name: "t", threads: 1, queueMax: 10, perUidMax: 2)
        let gate = Gate()
        let hangUp = HangUp()
        let runs = Runs()
        XCTAssertEqual(pool.submit(uid: 7) { gate.pass() }, .accepted)
        gate.waitUntilEntered(1)
        XCTAssertEqual(pool.submit(uid: 7, isCancelled: { hangUp.isCancelled }) { runs.add() }, .accepted)
        XCTAssertNotEqual(pool.submit(uid: 7, {}), .accepted, "both slots of uid 7 are taken")

        hangUp.happen()
        XCTAssertEqual(pool.submit(uid: 7) { runs.add() }, .accepted, "the departed peer's slot is free again")
        XCTAssertEqual(pool.snapshot, WorkPool.Snapshot(queued: 1, running: 1))
        gate.release()
        pool.shutdown()
        XCTAssertEqual(runs.value, 1, "only the job whose peer stayed ran")
    }

    func testACancelledWaitingJob_givesBackItsQueueSlot_toAnotherUid() throws {
        let pool = try WorkPool(name: "t", threads: 1, queueMax: 1, perUidMax: 10)
        let gate = Gate()
        let hangUp = HangUp()
        XCTAssertEqual(pool.submit(uid: 1) { gate.pass() }, .accepted)
        gate.waitUntilEntered(1)
        XCTAssertEqual(pool.submit(uid: 2, isCancelled: { hangUp.isCancelled }) {}, .accepted)
        XCTAssertNotEqual(pool.submit(uid: 3, {}), .accepted, "queue_max is reached")

        hangUp.happen()
        XCTAssertEqual(pool.submit(uid: 3, {}), .accepted)
        gate.release()
        pool.shutdown()
    }

    func testACancelledWaitingJob_releasesItsClosure_whileEveryWorkerIsBusy() throws {
        let pool = try WorkPool(name: "t", threads: 1, queueMax: 10, perUidMax: 10)
        let gate = Gate()
        let hangUp = HangUp()
        XCTAssertEqual(pool.submit(uid: 1) { gate.pass() }, .accepted)
        gate.waitUntilEntered(1)
        weak var watched: Held?
        do {
            let held = Held()
            watched = held
            XCTAssertEqual(pool.submit(uid: 2, isCancelled: { hangUp.isCancelled }) { _ = held }, .accepted)
        }
        XCTAssertNotNil(watched, "a waiting job keeps its closure")

        hangUp.happen()
        XCTAssertEqual(pool.submit(uid: 3, {}), .accepted)
        XCTAssertNil(watched, "the next submission dropped the departed peer's job and its closure")
        XCTAssertEqual(pool.snapshot, WorkPool.Snapshot(queued: 1, running: 1))
        gate.release()
        pool.shutdown()
    }

    /// The hint is `max(50, jobs ahead × mean job time)`; the mean starts at 100 ms and
    /// a job held at the gate only raises it, so it stays at 80 ms or more unless
    /// dropped jobs are counted as jobs of 0 ms (20 of them would bring it near 1 ms).
    func testCancelledJobs_doNotDragTheRetryHintDown() throws {
        let pool = try WorkPool(name: "t", threads: 1, queueMax: 32, perUidMax: 32)
        let gate = Gate()
        let hangUp = HangUp()
        let runs = Runs()
        XCTAssertEqual(pool.submit(uid: 1) { gate.pass() }, .accepted)
        gate.waitUntilEntered(1)
        for _ in 0..<20 {
            // As the engine's jobs did before the pool knew of cancellation.
            let job: @Sendable () -> Void = {
                guard !hangUp.isCancelled else { return }
                runs.add()
            }
            XCTAssertEqual(pool.submit(uid: 2, isCancelled: { hangUp.isCancelled }, job), .accepted)
        }
        hangUp.happen()
        // A full queue answers the hint (a stopped pool answers `.stopping`, no hint):
        // the worker held at the gate, the queue filled by uid 4 up to its quota.
        for _ in 0..<32 {
            XCTAssertEqual(pool.submit(uid: 4, {}), .accepted)
        }
        guard case .busy(let retry) = pool.submit(uid: 3, {}) else { return XCTFail("a full pool answers busy") }
        XCTAssertGreaterThanOrEqual(retry, 80, "jobs ahead at a mean of 80 ms or more")
        gate.release()
        pool.shutdown()
        XCTAssertEqual(runs.value, 0)
        XCTAssertEqual(pool.submit(uid: 3, {}), .stopping, "a stopped pool takes no job, and says it stops")
    }
}
