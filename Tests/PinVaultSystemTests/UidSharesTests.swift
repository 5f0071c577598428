import PinVaultSystem
import XCTest

/// `UidShares`: a capacity shared so that many uids of one person cannot take it all
/// (the session table, the connections, the locked input memory).
final class UidSharesTests: XCTestCase {
    /// 100 places: 10 for admins, 20 below them for uids holding fewer than 2, up to 8 each.
    private let limits = UidShares.Limits(capacity: 100, perUid: 8, adminReserve: 10, newcomerReserve: 20, newcomerShare: 2)

    func testManyUidsFillWhatIsOpenToAnyone_thenEachNewcomerGetsItsShare_thenOnlyAdmins() {
        var shares = UidShares(limits)
        var held: [UInt32: Int] = [:]
        for uid in UInt32(1)...40 {
            while shares.refusal(taking: 1, uid: uid, isAdmin: false) == nil {
                shares.take(1, uid: uid)
                held[uid, default: 0] += 1
            }
        }
        // 70 open to anyone: 8 uids × 8 and 6 more; then 20 newcomers' places, 2 each.
        XCTAssertEqual(held.values.filter { $0 == 8 }.count, 8)
        XCTAssertEqual(held[9], 6)
        XCTAssertEqual((10...19).map { held[UInt32($0)] ?? 0 }, Array(repeating: 2, count: 10))
        XCTAssertNil(held[20], "the newcomers' places went past their reserve")
        XCTAssertEqual(shares.total, 90)
        XCTAssertEqual(shares.refusal(taking: 1, uid: 20, isAdmin: false), .keptForAdmins)
        XCTAssertEqual(shares.refusal(taking: 1, uid: 1, isAdmin: false), .perUid)
        XCTAssertNil(shares.refusal(taking: 1, uid: 0, isAdmin: true))
        for _ in 0..<8 { shares.take(1, uid: 0) }
        XCTAssertEqual(shares.refusal(taking: 1, uid: 0, isAdmin: true), .perUid, "admins have the per-uid limit too")
        shares.take(2, uid: 1500)
        XCTAssertEqual(shares.refusal(taking: 1, uid: 1501, isAdmin: true), .full)
    }

    func testAUidHoldingItsShare_isRefusedTheNewcomersPlaces_andGivingBackReopensThem() {
        var shares = UidShares(limits)
        shares.take(70, uid: 1)  // measured after the fact: past perUid
        XCTAssertEqual(shares.refusal(taking: 1, uid: 2, isAdmin: false), nil, "a newcomer")
        shares.take(2, uid: 2)
        XCTAssertEqual(shares.refusal(taking: 1, uid: 2, isAdmin: false), .keptForNewcomers)
        shares.give(1, uid: 2)
        XCTAssertNil(shares.refusal(taking: 1, uid: 2, isAdmin: false))
        shares.give(100, uid: 1)
        XCTAssertEqual(shares.held(by: 1), 0, "gives back no more than it holds")
        XCTAssertEqual(shares.total, 1)
        shares.removeAll()
        XCTAssertEqual(shares.total, 0)
        XCTAssertNil(shares.refusal(taking: 8, uid: 2, isAdmin: false))
    }

    func testLimits_areClampedAndScaleWithoutOverflow() {
        let clamped = UidShares.Limits(capacity: 10, perUid: -1, adminReserve: 20, newcomerReserve: 5, newcomerShare: 1)
        XCTAssertEqual(clamped.adminReserve, 10)
        XCTAssertEqual(clamped.newcomerReserve, 0)
        XCTAssertEqual(clamped.perUid, 0)
        let bytes = limits.scaled(by: 65_536)
        XCTAssertEqual(bytes.capacity, 100 * 65_536)
        XCTAssertEqual(bytes.newcomerShare, 2 * 65_536)
        XCTAssertEqual(UidShares.Limits(capacity: .max, perUid: 1, adminReserve: 0, newcomerReserve: 0, newcomerShare: 0).scaled(by: 2).capacity, .max)
        var huge = UidShares(UidShares.Limits(capacity: .max, perUid: .max, adminReserve: 0, newcomerReserve: 0, newcomerShare: 0))
        huge.take(.max, uid: 1)
        XCTAssertEqual(huge.refusal(taking: 1, uid: 1, isAdmin: false), .perUid)
        XCTAssertEqual(huge.refusal(taking: 1, uid: 2, isAdmin: false), .full)
    }
}
