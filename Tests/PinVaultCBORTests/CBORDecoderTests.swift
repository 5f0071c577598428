import PinVaultCBOR
import XCTest

/// The strict decoder: what CTAP sends reads back exactly; everything outside CTAP's
/// subset is refused with the status an authenticator answers, never a trap.
final class CBORDecoderTests: XCTestCase {
    private func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.filter { !$0.isWhitespace })
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }

    private func refused(_ text: String, _ expected: CBORError, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try CBORDecoder.decode(hex(text)), file: file, line: line) { error in
            XCTAssertEqual(error as? CBORError, expected, file: file, line: line)
        }
    }

    func testIntegers_everyWidth_andBothSigns() throws {
        XCTAssertEqual(try CBORDecoder.decode(hex("17")), .int(23))
        XCTAssertEqual(try CBORDecoder.decode(hex("1818")), .int(24))
        XCTAssertEqual(try CBORDecoder.decode(hex("190100")), .int(256))
        XCTAssertEqual(try CBORDecoder.decode(hex("1a00010000")), .int(65536))
        XCTAssertEqual(try CBORDecoder.decode(hex("1b0000000100000000")), .int(1 << 32))
        XCTAssertEqual(try CBORDecoder.decode(hex("26")), .int(-7))
        XCTAssertEqual(try CBORDecoder.decode(hex("27")), .int(-8))
        XCTAssertEqual(try CBORDecoder.decode(hex("3818")), .int(-25))
        XCTAssertEqual(try CBORDecoder.decode(hex("3bffffffffffffffff")), .negative(UInt64.max))
        XCTAssertNil(CBORValue.negative(UInt64.max).intValue, "below Int.min: no Int")
    }

    func testAMakeCredentialRequest_readsBackItsParameters() throws {
        let request = hex("""
            a4 01 5820 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
            02 a1 62 6964 6b 6578616d706c652e636f6d
            03 a1 62 6964 44 01020304
            04 81 a2 63 616c67 26 64 74797065 6a 7075626c69632d6b6579
            """)
        let map = try CBORDecoder.decodeMap(request)
        XCTAssertEqual(map[1]?.bytesValue, Array(0..<32))
        XCTAssertEqual(map[2]?.mapValue?["id"]?.textValue, "example.com")
        XCTAssertEqual(map[3]?.mapValue?["id"]?.bytesValue, [1, 2, 3, 4])
        XCTAssertEqual(map[4]?.arrayValue?.first?.mapValue?["alg"]?.intValue, -7)
        XCTAssertEqual(map[4]?.arrayValue?.first?.mapValue?["type"]?.textValue, "public-key")
        XCTAssertNil(map[5])
    }

    func testSimpleValues_falseTrueNull() throws {
        XCTAssertEqual(try CBORDecoder.decode(hex("83 f4 f5 f6")), .array([.bool(false), .bool(true), .null]))
    }

    func testLenientWhereCTAPAllows_nonMinimalIntegers_andKeysOutOfOrder() throws {
        XCTAssertEqual(try CBORDecoder.decodeMap(hex("a1 1801 00"))[1], .int(0))
        XCTAssertEqual(try CBORDecoder.decodeMap(hex("a2 02 00 01 05"))[1], .int(5))
    }

    func testMalformed_isInvalidCBOR() {
        refused("", .invalidCBOR)
        refused("19 01", .invalidCBOR)           // truncated argument
        refused("1c", .invalidCBOR)              // reserved additional information
        refused("a0 00", .invalidCBOR)           // a byte after the item
        refused("42 01", .invalidCBOR)           // bytes past the end
        refused("62 c3 28", .invalidCBOR)        // invalid UTF-8
        refused("a1 01", .invalidCBOR)           // a key without its value
    }

    func testOutsideCTAPsSubset_isInvalidCBOR() {
        refused("9f 01 ff", .invalidCBOR)        // indefinite array
        refused("5f 41 00 ff", .invalidCBOR)     // indefinite byte string
        refused("bf 01 00 ff", .invalidCBOR)     // indefinite map
        refused("c2 41 01", .invalidCBOR)        // a tag
        refused("f9 3c00", .invalidCBOR)         // a half float
        refused("fb 3ff0000000000000", .invalidCBOR)
        refused("f7", .invalidCBOR)              // undefined
        refused("f0", .invalidCBOR)              // an unassigned simple value
        refused("ff", .invalidCBOR)              // a lone break
    }

    func testMapKeys_integersOrTextOnce() {
        refused("a2 01 00 01 01", .invalidCBOR)              // duplicate integer key
        refused("a2 61 61 00 61 61 01", .invalidCBOR)        // duplicate text key
        refused("a2 01 00 1801 01", .invalidCBOR)            // the same key, encoded longer
        refused("a1 41 00 00", .invalidCBOR)                 // a byte-string key
        refused("a1 80 00", .invalidCBOR)                    // an array key
        refused("a1 f5 00", .invalidCBOR)                    // a boolean key
    }

    func testNesting_boundedAtTheLimit() throws {
        let depth = CBORLimits.maximumDepth
        XCTAssertNoThrow(try CBORDecoder.decode(hex(String(repeating: "81", count: depth) + "00")))
        refused(String(repeating: "81", count: depth + 1) + "00", .invalidCBOR)
        refused(String(repeating: "a1 01", count: depth + 1) + "00", .invalidCBOR)
        // Far deeper than the stack could take, were the limit not checked first.
        refused(String(repeating: "81", count: 100_000), .invalidLength)
        refused(String(repeating: "81", count: CBORLimits.maximumMessageSize), .invalidCBOR)
    }

    func testSizes_checkedBeforeAllocation() {
        refused("5a ffffffff 00", .invalidCBOR)              // a 4 GiB byte string announced
        refused("9b ffffffffffffffff", .invalidCBOR)         // 2^64-1 items announced
        refused("bb 7fffffffffffffff", .invalidCBOR)
        refused("82 00", .invalidCBOR)                       // two items announced, one there
        let tooLong = [UInt8](repeating: 0, count: CBORLimits.maximumMessageSize + 1)
        XCTAssertThrowsError(try CBORDecoder.decode(tooLong)) { XCTAssertEqual($0 as? CBORError, .invalidLength) }
    }

    func testStatusBytes_areCTAPs() {
        XCTAssertEqual(CBORError.invalidCBOR.ctapStatus, 0x12)
        XCTAssertEqual(CBORError.invalidLength.ctapStatus, 0x03)
        XCTAssertEqual(CBORError.unexpectedType.ctapStatus, 0x11)
        XCTAssertEqual(CBORError.missingParameter.ctapStatus, 0x14)
        XCTAssertThrowsError(try CBORDecoder.decodeMap(hex("80"))) { XCTAssertEqual($0 as? CBORError, .unexpectedType) }
    }
}
