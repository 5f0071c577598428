import XCTest

@testable import PinVaultCrypto

/// Small secrets reuse kept `sodium_malloc` allocations (`SecretPool`): what one secret
/// leaves is zeroed before the next gets its memory, protected pages are never kept, and
/// the pool keeps a bounded number.
final class SecretPoolTests: XCTestCase {
    /// The address of a secret's bytes, and whether every byte of its allocation is zero.
    private func inspect(_ secret: SecretBytes) -> (address: UInt, allZero: Bool) {
        secret.withUnsafeMutableAllocation { bytes in
            (UInt(bitPattern: bytes.baseAddress), bytes.allSatisfy { $0 == 0 })
        }
    }

    func testAReleasedSecret_isZeroed_beforeItsMemoryServesTheNext() throws {
        var first: SecretBytes? = try SecretBytes(zeroed: 100)
        first?.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0xAB) }
        let address = try XCTUnwrap(first.map { inspect($0).address })
        first = nil
        // Another length of the same kind (128 bytes): the same memory, all of it zero.
        let next = try SecretBytes(capacity: 120)
        next.fill { $0.count }
        let seen = inspect(next)
        XCTAssertEqual(seen.address, address, "the released allocation was not reused")
        XCTAssertTrue(seen.allZero, "a secret's bytes outlived it, in the next secret's memory")
    }

    func testASecretWhosePagesWereProtected_isFreed_notKept() throws {
        let kept = SecretPool.keptCount
        var secret: SecretBytes? = try SecretBytes(zeroed: 32)
        try secret?.protect(.noAccess)
        try secret?.protect(.readWrite)
        secret = nil
        XCTAssertLessThanOrEqual(SecretPool.keptCount, kept, "protected pages went back to the pool")
    }

    func testThePool_keepsABoundedNumberOfEachSize() throws {
        var many: [SecretBytes] = []
        for _ in 0..<(3 * SecretPool.keptPerSize) { many.append(try SecretBytes(zeroed: 512)) }
        let before = SecretPool.keptCount
        many.removeAll()
        XCTAssertLessThanOrEqual(SecretPool.keptCount - before, SecretPool.keptPerSize)
    }

    func testLargeSecrets_haveAllocationsOfTheirOwn() throws {
        XCTAssertNil(SecretPool.size(for: SecretPool.largest + 1))
        XCTAssertEqual(SecretPool.size(for: 0), SecretPool.smallest)
        XCTAssertEqual(SecretPool.size(for: 33), 64)
        XCTAssertEqual(SecretPool.size(for: SecretPool.largest), SecretPool.largest)
        let large = try SecretBytes(zeroed: 5000)
        XCTAssertTrue(inspect(large).allZero)
    }
}
