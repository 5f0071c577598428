import XCTest

@testable import PinVaultCrypto

final class ConstantTimeTests: XCTestCase {
    func testEquals_sameBytes_isTrue() {
        XCTAssertTrue(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        XCTAssertTrue(ConstantTime.equals([], []))
    }

    func testEquals_differentBytes_isFalse() {
        XCTAssertFalse(ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        XCTAssertFalse(ConstantTime.equals([0, 2, 3], [1, 2, 3]))
    }

    func testEquals_differentLengths_isFalse() {
        XCTAssertFalse(ConstantTime.equals([1, 2, 3], [1, 2]))
        XCTAssertFalse(ConstantTime.equals([], [0]))
    }
}
