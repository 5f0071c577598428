import XCTest

@testable import PinVaultCrypto

final class SecretBytesTests: XCTestCase {
    func testInitCapacity_startsEmptyAndZeroed() throws {
        let bytes = try SecretBytes(capacity: 8)
        XCTAssertEqual(bytes.capacity, 8)
        XCTAssertEqual(bytes.count, 0)
        XCTAssertEqual(wholeCapacity(bytes), [UInt8](repeating: 0, count: 8))
    }

    func testInitZeroed_hasCountZeroBytes() throws {
        let bytes = try SecretBytes(zeroed: 5)
        XCTAssertEqual(bytes.count, 5)
        XCTAssertEqual(contents(bytes), [0, 0, 0, 0, 0])
    }

    func testInitCapacity_negative_throwsInvalidLength() {
        assertThrows(.invalidLength("capacity")) { try SecretBytes(capacity: -1) }
    }

    func testCapacityZero_holdsNothingAndRefusesAppends() throws {
        let bytes = try SecretBytes(capacity: 0)
        XCTAssertEqual(bytes.count, 0)
        XCTAssertEqual(contents(bytes), [])
        XCTAssertFalse(bytes.append(1))
        XCTAssertEqual(bytes.count, 0)
        bytes.fill { buffer in
            XCTAssertEqual(buffer.count, 0)
            return 10
        }
        XCTAssertEqual(bytes.count, 0, "fill clamps to the capacity")
        bytes.wipe()
        XCTAssertEqual(bytes.count, 0)
        XCTAssertTrue(bytes.constantTimeEquals(try SecretBytes(capacity: 0)))
    }

    func testInitCopying_holdsACopy() throws {
        let bytes = try secret([1, 2, 3])
        XCTAssertEqual(bytes.count, 3)
        XCTAssertEqual(bytes.capacity, 3)
        XCTAssertEqual(contents(bytes), [1, 2, 3])
    }

    func testAppend_fillsUpToCapacityThenRefuses() throws {
        let bytes = try SecretBytes(capacity: 3)
        XCTAssertTrue(bytes.append(0x31))
        XCTAssertTrue(bytes.append(0x32))
        XCTAssertTrue(bytes.append(0x33))
        XCTAssertFalse(bytes.append(0x34))
        XCTAssertEqual(contents(bytes), Array("123".utf8))
    }

    func testFill_setsCountToWhatWasWrittenAndZeroesTheRest() throws {
        let bytes = try SecretBytes(capacity: 6)
        bytes.fill { buffer in
            for index in buffer.indices { buffer[index] = 0xAA }
            return 6
        }
        XCTAssertEqual(contents(bytes), [UInt8](repeating: 0xAA, count: 6))

        bytes.fill { buffer in
            buffer[0] = 1
            buffer[1] = 2
            return 2
        }
        XCTAssertEqual(bytes.count, 2)
        XCTAssertEqual(contents(bytes), [1, 2])
        XCTAssertEqual(wholeCapacity(bytes), [1, 2, 0, 0, 0, 0], "bytes past the count are zeroed")
    }

    func testFill_clampsNegativeAndOversizedCounts() throws {
        let bytes = try SecretBytes(capacity: 4)
        bytes.fill { _ in -3 }
        XCTAssertEqual(bytes.count, 0)
        bytes.fill { _ in 99 }
        XCTAssertEqual(bytes.count, 4)
    }

    func testFill_whenBodyThrows_propagatesTheError() throws {
        struct Interrupted: Error {}
        let bytes = try SecretBytes(capacity: 4)
        XCTAssertThrowsError(try bytes.fill { _ throws(Interrupted) -> Int in throw Interrupted() }) {
            XCTAssertTrue($0 is Interrupted)
        }
    }

    func testWipe_zeroesEveryByteAndEmpties() throws {
        let bytes = try secret(Array("493027".utf8))
        bytes.wipe()
        XCTAssertEqual(bytes.count, 0)
        XCTAssertEqual(wholeCapacity(bytes), [UInt8](repeating: 0, count: 6))
    }

    func testWithUnsafeMutableBytes_writesInPlace() throws {
        let bytes = try SecretBytes(zeroed: 2)
        bytes.withUnsafeMutableBytes { $0[1] = 7 }
        XCTAssertEqual(contents(bytes), [0, 7])
    }

    func testConstantTimeEquals_comparesContentsAndLengths() throws {
        let pin = try secret("493027")
        XCTAssertTrue(pin.constantTimeEquals(try secret("493027")))
        XCTAssertFalse(pin.constantTimeEquals(try secret("493028")))
        XCTAssertFalse(pin.constantTimeEquals(try secret("4930271")))
        XCTAssertFalse(pin.constantTimeEquals(try SecretBytes(capacity: 0)))
    }

    func testConstantTimeEquals_ignoresUnusedCapacity() throws {
        let roomy = try SecretBytes(capacity: 16)
        for byte in Array("493027".utf8) { roomy.append(byte) }
        XCTAssertTrue(roomy.constantTimeEquals(try secret("493027")))
    }

    func testRandom_givesCountFreshBytes() throws {
        let first = try SecretBytes.random(count: 32)
        let second = try SecretBytes.random(count: 32)
        XCTAssertEqual(first.count, 32)
        XCTAssertFalse(first.constantTimeEquals(second))
        XCTAssertEqual(try SecretBytes.random(count: 0).count, 0)
    }

    func testAppendIntoFreeSpace_writesAfterTheCountAndAddsWhatWasWritten() throws {
        let secret = try SecretBytes(capacity: 8)
        secret.append(1)
        secret.appendIntoFreeSpace { free in
            XCTAssertEqual(free.count, 7)
            free[0] = 2
            free[1] = 3
            return 2
        }
        XCTAssertEqual(secret.withUnsafeBytes { Array($0) }, [1, 2, 3])
        secret.appendIntoFreeSpace { _ in 100 }
        XCTAssertEqual(secret.count, 8, "clamped to the free space")
        secret.appendIntoFreeSpace { free in
            XCTAssertEqual(free.count, 0)
            return -1
        }
        XCTAssertEqual(secret.count, 8)
    }

    func testTruncate_zeroesWhatItDrops_andNeverGrows() throws {
        let secret = try SecretBytes(capacity: 4)
        for byte: UInt8 in [9, 8, 7, 6] { secret.append(byte) }
        secret.truncate(to: 1)
        XCTAssertEqual(secret.withUnsafeBytes { Array($0) }, [9])
        secret.fill { whole in Array(whole).count }  // count = capacity, to look past the old count
        XCTAssertEqual(secret.withUnsafeBytes { Array($0) }, [9, 0, 0, 0])
        secret.truncate(to: 10)
        XCTAssertEqual(secret.count, 4)
        secret.truncate(to: -1)
        XCTAssertEqual(secret.count, 0)
    }
}
