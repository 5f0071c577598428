import PinVaultCBOR
import XCTest

/// The encoder writes CTAP2's canonical form: shortest heads, definite lengths, map keys
/// sorted by major type, then length, then bytes (CTAP 2.1 §8's own example order).
final class CBOREncoderTests: XCTestCase {
    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    func testIntegers_inTheFewestBytes() {
        XCTAssertEqual(hex(CBOREncoder.encode(.int(0))), "00")
        XCTAssertEqual(hex(CBOREncoder.encode(.int(23))), "17")
        XCTAssertEqual(hex(CBOREncoder.encode(.int(24))), "1818")
        XCTAssertEqual(hex(CBOREncoder.encode(.int(255))), "18ff")
        XCTAssertEqual(hex(CBOREncoder.encode(.int(256))), "190100")
        XCTAssertEqual(hex(CBOREncoder.encode(.int(65536))), "1a00010000")
        XCTAssertEqual(hex(CBOREncoder.encode(.int(1 << 32))), "1b0000000100000000")
        XCTAssertEqual(hex(CBOREncoder.encode(.int(-1))), "20")
        XCTAssertEqual(hex(CBOREncoder.encode(.int(-7))), "26")
        XCTAssertEqual(hex(CBOREncoder.encode(.int(-25))), "3818")
    }

    func testMapKeys_inCTAP2CanonicalOrder() {
        // CTAP 2.1 §8 sorts 10, 100, -1, "z", "aa", [100], [-1], false.
        var map = CBORMap()
        for key: CBORValue in [.text("aa"), .int(-1), .text("z"), .int(100), .int(10)] {
            map.set(key, .null)
        }
        XCTAssertEqual(hex(CBOREncoder.encode(.map(map))), "a5" + "0af6" + "1864f6" + "20f6" + "617af6" + "626161f6")
    }

    func testAGetInfoLikeReply_isCanonicalAndReadsBack() throws {
        let options = CBORMap([(.text("rk"), .bool(true)), (.text("up"), .bool(true)), (.text("clientPin"), .bool(false))])
        let info = CBORMap([
            (.int(3), .bytes([UInt8](repeating: 0xab, count: 16))),
            (.int(1), .array([.text("FIDO_2_0"), .text("FIDO_2_1")])),
            (.int(4), .map(options)),
        ])
        let encoded = CBOREncoder.encode(.map(info))
        XCTAssertEqual(Array(encoded.prefix(2)), [0xa3, 0x01], "key 1 first")
        XCTAssertEqual(try CBORDecoder.decode(encoded), .map(info))
        // Nested maps are sorted as well: "up" and "rk" (2 bytes) before "clientPin".
        let optionsBytes = CBOREncoder.encode(.map(options))
        XCTAssertEqual(hex(Array(optionsBytes.prefix(4))), "a362726b")
    }

    func testStringsAndArrays_roundTrip() throws {
        let value = CBORValue.array([.bytes([]), .bytes(Array(repeating: 7, count: 300)), .text("é"), .bool(true), .null, .int(-8)])
        XCTAssertEqual(try CBORDecoder.decode(CBOREncoder.encode(value)), value)
    }
}
