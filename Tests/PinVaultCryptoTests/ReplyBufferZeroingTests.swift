import PinVaultCrypto
import XCTest

/// The invariant a reused reply buffer rests on: every byte from `count` to `capacity`
/// is zero, after any sequence of appends, consumes, zeroes and growth.
final class ReplyBufferZeroingTests: XCTestCase {
    private func assertZeroBeyondCount(_ buffer: ReplyBuffer, _ message: String, line: UInt = #line) {
        let tail = buffer.withAllocatedBytes { Array($0[buffer.count...]) }
        XCTAssertEqual(tail.count, buffer.capacity - buffer.count, message, line: line)
        XCTAssertTrue(tail.allSatisfy { $0 == 0 }, "\(message): a byte beyond count is not zero", line: line)
    }

    func testConsumingEverything_leavesTheWholeAllocationZero() {
        let buffer = ReplyBuffer(capacity: 64)
        buffer.append(utf8: #"{"parameters":{"token":"c2VjcmV0LXRva2Vu"}}"#)
        buffer.append(0)
        buffer.consume(10)
        assertZeroBeyondCount(buffer, "after a partial send")
        buffer.consume(buffer.count)
        XCTAssertEqual(buffer.count, 0)
        assertZeroBeyondCount(buffer, "after the whole reply was sent")
    }

    func testZero_clearsTheWrittenBytes_andLeavesNothingBehind() {
        let buffer = ReplyBuffer(capacity: 16)
        buffer.append(utf8: String(repeating: "s", count: 40))  // grows to 64
        assertZeroBeyondCount(buffer, "after growth")
        buffer.zero()
        XCTAssertEqual(buffer.count, 0)
        XCTAssertEqual(buffer.capacity, 64)
        assertZeroBeyondCount(buffer, "after zero()")
    }

    func testReuse_aShorterReplyAfterALongerOne_carriesNoByteOfTheFirst() {
        let buffer = ReplyBuffer(capacity: 128)
        buffer.append(utf8: #"{"parameters":{"keyId":"ab","token":"TOKENTOKENTOKENTOKEN"}}"#)
        buffer.consume(buffer.count)
        buffer.append(utf8: #"{"parameters":{}}"#)
        XCTAssertEqual(String(decoding: buffer.copyBytes(), as: UTF8.self), #"{"parameters":{}}"#)
        assertZeroBeyondCount(buffer, "after the second reply")
        let everything = buffer.withAllocatedBytes { Array($0) }
        XCTAssertNil(String(decoding: everything, as: UTF8.self).range(of: "TOKEN"))
    }

    func testAppendByteCount_writesOnlyItsRun_andKeepsTheRestZero() {
        let buffer = ReplyBuffer(capacity: 16)
        buffer.write { output in
            output.append(byteCount: 20) { target in
                for offset in 0..<20 { target.storeBytes(of: 0x41, toByteOffset: offset, as: UInt8.self) }
            }
        }
        XCTAssertEqual(buffer.copyBytes(), [UInt8](repeating: 0x41, count: 20))
        XCTAssertEqual(buffer.capacity, 32)
        assertZeroBeyondCount(buffer, "after a run that grew the buffer")
    }
}
