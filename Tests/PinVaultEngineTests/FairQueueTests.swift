import XCTest

@testable import PinVaultEngine

final class FairQueueTests: XCTestCase {
    private func drain(_ queue: inout FairQueue<String>) -> [String] {
        var taken: [String] = []
        while let element = queue.removeFirst() { taken.append(element) }
        return taken
    }

    func testRemoveFirst_takesTurnsBetweenUids_inTheOrderTheyArrived() {
        var queue = FairQueue<String>()
        for element in ["a1", "a2", "a3"] { queue.append(element, for: 1) }
        queue.append("b1", for: 2)
        for element in ["c1", "c2"] { queue.append(element, for: 3) }
        XCTAssertEqual(drain(&queue), ["a1", "b1", "c1", "a2", "c2", "a3"])
    }

    func testRemoveFirst_keepsEachUidsElementsInOrder() {
        var queue = FairQueue<String>()
        for index in 0..<5 {
            queue.append("x\(index)", for: 9)
            queue.append("y\(index)", for: 4)
        }
        let taken = drain(&queue)
        XCTAssertEqual(taken.filter { $0.hasPrefix("x") }, ["x0", "x1", "x2", "x3", "x4"])
        XCTAssertEqual(taken.filter { $0.hasPrefix("y") }, ["y0", "y1", "y2", "y3", "y4"])
        XCTAssertEqual(taken.first, "x0", "uid 9 came first")
    }

    func testAUidWhoseElementsAreAllTaken_leavesTheLine_andComesBackLast() {
        var queue = FairQueue<String>()
        queue.append("a1", for: 1)
        queue.append("b1", for: 2)
        queue.append("b2", for: 2)
        XCTAssertEqual(queue.removeFirst(), "a1")
        queue.append("a2", for: 1)  // uid 1 is new to the line again: behind uid 2
        XCTAssertEqual(drain(&queue), ["b1", "a2", "b2"])
    }

    func testCount_followsAppendsAndRemovals_andAnEmptyQueueGivesNil() {
        var queue = FairQueue<Int>()
        XCTAssertTrue(queue.isEmpty)
        XCTAssertNil(queue.removeFirst())
        for index in 0..<64 { queue.append(index, for: UInt32(index % 8)) }
        XCTAssertEqual(queue.count, 64)
        XCTAssertFalse(queue.isEmpty)
        for expected in stride(from: 63, through: 0, by: -1) {
            XCTAssertNotNil(queue.removeFirst())
            XCTAssertEqual(queue.count, expected)
        }
        XCTAssertTrue(queue.isEmpty)
        XCTAssertNil(queue.removeFirst(), "nothing is left behind")
    }

    func testRemoveAll_takesOutTheMatches_andKeepsTheRestInTurn() {
        var queue = FairQueue<String>()
        for element in ["a1", "a-gone", "a2"] { queue.append(element, for: 1) }
        queue.append("b-gone", for: 2)
        for element in ["c1", "c2"] { queue.append(element, for: 3) }

        let removed = queue.removeAll { $0.hasSuffix("gone") }
        XCTAssertEqual(removed.map(\.element), ["a-gone", "b-gone"])
        XCTAssertEqual(removed.map(\.uid), [1, 2])
        XCTAssertEqual(queue.count, 4)
        XCTAssertEqual(drain(&queue), ["a1", "c1", "a2", "c2"], "uid 2 left the line with its only element")
    }

    func testRemoveAll_withNoMatch_changesNothing() {
        var queue = FairQueue<String>()
        queue.append("a1", for: 1)
        queue.append("b1", for: 2)
        XCTAssertTrue(queue.removeAll { _ in false }.isEmpty)
        XCTAssertEqual(queue.count, 2)
        XCTAssertEqual(drain(&queue), ["a1", "b1"])
    }

    func testRemoveAll_ofEverything_leavesAnEmptyQueueThatWorksAgain() {
        var queue = FairQueue<String>()
        for uid: UInt32 in [1, 2, 3] { queue.append("e\(uid)", for: uid) }
        XCTAssertEqual(queue.removeAll { _ in true }.count, 3)
        XCTAssertTrue(queue.isEmpty)
        XCTAssertNil(queue.removeFirst())
        queue.append("again", for: 2)
        XCTAssertEqual(drain(&queue), ["again"])
    }
}
