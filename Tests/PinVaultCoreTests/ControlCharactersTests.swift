import PinVaultCore
import XCTest

final class ControlCharactersTests: XCTestCase {
    func testContains_everyRefusedRange_andItsNeighboursNot() throws {
        let refused: [ClosedRange<UInt32>] = [
            0x00...0x1F, 0x7F...0x9F, 0x061C...0x061C, 0x200E...0x200F,
            0x2028...0x202E, 0x2066...0x2069, 0xFEFF...0xFEFF,
        ]
        for range in refused {
            for value in range {
                XCTAssertTrue(ControlCharacters.contains(try XCTUnwrap(Unicode.Scalar(value))), String(value, radix: 16))
            }
        }
        for value: UInt32 in [0x20, 0x7E, 0xA0, 0x061B, 0x061D, 0x200B, 0x200C, 0x200D, 0x2027, 0x202F, 0x2065, 0x206A, 0xFEFE, 0xFFFD] {
            XCTAssertFalse(ControlCharacters.contains(try XCTUnwrap(Unicode.Scalar(value))), String(value, radix: 16))
        }
    }
}
