import XCTest

@testable import PinVaultCrypto

final class UnregistrationTokenTests: XCTestCase {
    func testGenerate_gives32FreshBytes() throws {
        let first = try UnregistrationToken.generate()
        let second = try UnregistrationToken.generate()
        XCTAssertEqual(first.count, UnregistrationToken.size)
        XCTAssertFalse(first.constantTimeEquals(second))
    }

    func testHash_isUnkeyedBLAKE2b256() throws {
        // Expected value from Python: hashlib.blake2b(bytes(range(32)), digest_size=32).
        let token = try secret([UInt8](0..<32))
        XCTAssertEqual(
            try UnregistrationToken.hash(token).hex,
            "cb2f5160fc1f7e05a55ef49d340b48da2e5a78099d53393351cd579dd42503d6"
        )
    }

    func testHash_ofTheSameToken_matchesInConstantTime() throws {
        let token = try UnregistrationToken.generate()
        let stored = try UnregistrationToken.hash(token)
        let presented = try secret(contents(token))
        XCTAssertTrue(ConstantTime.equals(stored, try UnregistrationToken.hash(presented)))
        XCTAssertFalse(ConstantTime.equals(stored, try UnregistrationToken.hash(UnregistrationToken.generate())))
    }

    func testHash_ofWrongSize_throwsInvalidLength() throws {
        let short = try SecretBytes.random(count: 31)
        assertThrows(.invalidLength("token")) { try UnregistrationToken.hash(short) }
        let empty = try SecretBytes(capacity: 0)
        assertThrows(.invalidLength("token")) { try UnregistrationToken.hash(empty) }
    }
}
