import PinVaultCrypto
import XCTest

/// The pepper's check value (docs/FORMAT.md §9), against Python's hashlib:
/// `blake2b(b"PinVault pepper check v1", key=bytes(range(32)), digest_size=32)`.
final class PepperCheckValueTests: XCTestCase {
    private func pepper(_ bytes: [UInt8]) throws -> Pepper {
        try Pepper(secret: bytes.withUnsafeBytes { try SecretBytes(copying: $0) })
    }

    func testCheckValue_ofTheFormatExamplePepper_isTheDocumentedOne() throws {
        let value = try pepper(Array(0..<32)).checkValue()
        XCTAssertEqual(value.map { String(format: "%02x", $0) }.joined(),
                       "aca31e11c70ad1f0a21bcbcbf88b517333c18f82562b3553d4d750bfe52e9275")
    }

    func testCheckValues_ofTwoPeppers_differ_andSamenessIsByContent() throws {
        let first = try Pepper.generate()
        let second = try Pepper.generate()
        XCTAssertNotEqual(try first.checkValue(), try second.checkValue())
        XCTAssertTrue(first.isSame(as: try pepper(first.secret.withUnsafeBytes { Array($0) })))
        XCTAssertFalse(first.isSame(as: second))
    }
}
