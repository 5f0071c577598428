import PinVaultClient
import XCTest

/// `PIN` and `UnregistrationToken` on their own: filling, wiping, comparing.
final class PINTests: XCTestCase {
    func testReading_keepsExactlyTheBytesWritten_newlineIncluded() {
        let pin = PIN(capacity: 16) { buffer in
            buffer.copyBytes(from: Array("1234\n".utf8))
            return 5
        }
        XCTAssertEqual(pin.byteCount, 5)
        XCTAssertTrue(pin.constantTimeEquals(PIN("1234\n")))
        XCTAssertFalse(pin.constantTimeEquals(PIN("1234")))
    }

    func testReading_clampsTheCountToTheCapacity() {
        let pin = PIN(capacity: 4) { _ in 100 }
        XCTAssertEqual(pin.byteCount, 4)
        XCTAssertEqual(PIN(capacity: 4) { _ in -1 }.byteCount, 0)
    }

    func testReading_rethrowsTheReadersError() {
        struct ReadFailed: Error {}
        XCTAssertThrowsError(try PIN { _ in throw ReadFailed() }) { XCTAssertTrue($0 is ReadFailed) }
    }

    func testWipe_consumesThePin_andIsIdempotent() {
        let pin = PIN(copying: [0x31, 0x32, 0x33])
        XCTAssertFalse(pin.isConsumed)
        pin.wipe()
        pin.wipe()
        XCTAssertTrue(pin.isConsumed)
        XCTAssertEqual(pin.byteCount, 0)
    }

    func testConstantTimeEquals_comparesContents_inBothOrders_andWithItself() {
        let a = PIN("258046")
        let b = PIN("258046")
        let c = PIN("258047")
        XCTAssertTrue(a.constantTimeEquals(b))
        XCTAssertTrue(b.constantTimeEquals(a))
        XCTAssertFalse(a.constantTimeEquals(c))
        XCTAssertTrue(a.constantTimeEquals(a))
    }

    func testUnregistrationToken_exposesItsTextOnlyInAClosure_andWipes() {
        let token = UnregistrationToken(copying: Array("abc_-DEF".utf8))
        XCTAssertEqual(token.withUnsafeBytes { Array($0) }, Array("abc_-DEF".utf8))
        token.wipe()
        XCTAssertEqual(token.withUnsafeBytes { $0.count }, 0)
        XCTAssertFalse(String(describing: token).contains("abc"))
    }
}
