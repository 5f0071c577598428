import XCTest

@testable import PinVaultCrypto

final class RandomBytesTests: XCTestCase {
    func testMake_givesTheCountAsked() {
        XCTAssertEqual(RandomBytes.make(count: 16).count, 16)
        XCTAssertEqual(RandomBytes.make(count: 24).count, 24)
    }

    func testMake_withZeroOrNegativeCount_isEmpty() {
        XCTAssertEqual(RandomBytes.make(count: 0), [])
        XCTAssertEqual(RandomBytes.make(count: -1), [])
    }

    func testMake_twice_differs() {
        XCTAssertNotEqual(RandomBytes.make(count: 24), RandomBytes.make(count: 24))
    }
}
