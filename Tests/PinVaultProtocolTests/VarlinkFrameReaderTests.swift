@testable import PinVaultProtocol
import XCTest

final class VarlinkFrameReaderTests: XCTestCase {
    /// Simulates the daemon: a fixed buffer, reads appended at `filled`, frames collected,
    /// compaction before each read.
    private struct Connection {
        var reader: VarlinkFrameReader
        var buffer: [UInt8]
        var filled = 0
        var frames: [String] = []
        var tooLarge = false

        init(maxMessageBytes: Int) {
            reader = VarlinkFrameReader(maxMessageBytes: maxMessageBytes)
            buffer = [UInt8](repeating: 0, count: maxMessageBytes)
        }

        mutating func receive(_ text: String) {
            for byte in text.utf8 {
                if filled == buffer.count { drain() }
                guard !tooLarge, filled < buffer.count else { return }
                buffer[filled] = byte
                filled += 1
            }
            drain()
        }

        mutating func drain() {
            loop: while true {
                let event = buffer.withUnsafeBytes { reader.next(in: UnsafeRawBufferPointer(rebasing: $0[0..<filled])) }
                switch event {
                case .frame(let range):
                    frames.append(String(decoding: buffer[range], as: UTF8.self))
                case .needMore:
                    break loop
                case .tooLarge:
                    tooLarge = true
                    break loop
                }
            }
            let filledNow = filled
            filled = buffer.withUnsafeMutableBytes { reader.compact($0, filled: filledNow) }
        }
    }

    func testNext_withOneCompleteFrame_returnsItWithoutTheNul() {
        var reader = VarlinkFrameReader()
        let bytes = Array("{}\0".utf8)
        bytes.withUnsafeBytes { raw in
            XCTAssertEqual(reader.next(in: raw), .frame(0..<2))
            XCTAssertEqual(reader.next(in: raw), .needMore)
        }
    }

    func testNext_withSeveralFramesInOneRead_returnsEachInOrder() {
        var connection = Connection(maxMessageBytes: 64)
        connection.receive("{\"a\":1}\0{\"b\":2}\0{\"c\"")
        XCTAssertEqual(connection.frames, ["{\"a\":1}", "{\"b\":2}"])
        connection.receive(":3}\0")
        XCTAssertEqual(connection.frames, ["{\"a\":1}", "{\"b\":2}", "{\"c\":3}"])
        XCTAssertFalse(connection.tooLarge)
    }

    func testNext_withAFrameSplitAcrossManyReads_assemblesIt() {
        var connection = Connection(maxMessageBytes: 64)
        for character in "{\"method\":\"a.b.C\"}\0" { connection.receive(String(character)) }
        XCTAssertEqual(connection.frames, ["{\"method\":\"a.b.C\"}"])
    }

    func testNext_withAnEmptyFrame_returnsAnEmptyRange() {
        var reader = VarlinkFrameReader()
        [UInt8]([0, 0]).withUnsafeBytes { raw in
            XCTAssertEqual(reader.next(in: raw), .frame(0..<0))
            XCTAssertEqual(reader.next(in: raw), .frame(1..<1))
            XCTAssertEqual(reader.next(in: raw), .needMore)
        }
    }

    func testNext_withNoNulWithinTheLimit_isTooLarge_andStaysSo() {
        var reader = VarlinkFrameReader(maxMessageBytes: 8)
        let bytes = [UInt8](repeating: UInt8(ascii: "x"), count: 8) + [0]
        bytes.withUnsafeBytes { raw in
            XCTAssertEqual(reader.next(in: UnsafeRawBufferPointer(rebasing: raw[0..<7])), .needMore)
            XCTAssertEqual(reader.next(in: raw), .tooLarge)
            XCTAssertEqual(reader.next(in: raw), .tooLarge)
        }
    }

    func testNext_withAFrameOfExactlyTheLimitIncludingNul_isAccepted() {
        var reader = VarlinkFrameReader(maxMessageBytes: 8)
        let bytes = [UInt8](repeating: UInt8(ascii: "x"), count: 7) + [0]
        bytes.withUnsafeBytes { raw in
            XCTAssertEqual(reader.next(in: raw), .frame(0..<7))
        }
    }

    func testConnection_whoseSecondFrameOverflows_getsTheFirstThenTooLarge() {
        var connection = Connection(maxMessageBytes: 16)
        connection.receive("{}\0" + String(repeating: "y", count: 40))
        XCTAssertEqual(connection.frames, ["{}"])
        XCTAssertTrue(connection.tooLarge)
    }

    func testCompact_movesTheTailToTheFrontAndZeroesTheRest() {
        var reader = VarlinkFrameReader(maxMessageBytes: 16)
        var buffer = Array("ab\0cd".utf8) + [UInt8](repeating: 0xEE, count: 3)
        let event = buffer.withUnsafeBytes { reader.next(in: UnsafeRawBufferPointer(rebasing: $0[0..<5])) }
        XCTAssertEqual(event, .frame(0..<2))
        let filled = buffer.withUnsafeMutableBytes { reader.compact($0, filled: 5) }
        XCTAssertEqual(filled, 2)
        XCTAssertEqual(Array(buffer[0..<5]), Array("cd".utf8) + [0, 0, 0])
        XCTAssertEqual(reader.frameStart, 0)
    }

    func testZeroConsumed_clearsReturnedFramesOnly() {
        var reader = VarlinkFrameReader()
        var buffer = Array("pin\0next".utf8)
        _ = buffer.withUnsafeBytes { reader.next(in: $0) }
        buffer.withUnsafeMutableBytes { reader.zeroConsumed(in: $0) }
        XCTAssertEqual(buffer, [0, 0, 0, 0] + Array("next".utf8))
    }

    func testTricklingAMaximalFrame_scansEachByteOnce() {
        // One byte per read for a full-size frame: quadratic rescanning would take seconds.
        var connection = Connection(maxMessageBytes: 65_536)
        let body = String(repeating: " ", count: 65_534)
        for character in body { connection.receive(String(character)) }
        connection.receive("1\0")
        XCTAssertEqual(connection.frames.count, 1)
        XCTAssertEqual(connection.frames.first?.utf8.count, 65_535)
    }
}
