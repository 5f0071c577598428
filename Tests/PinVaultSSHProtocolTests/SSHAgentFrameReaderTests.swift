import PinVaultSSHProtocol
import XCTest

/// The agent's framing: a 4-byte big-endian length, then the message; a length of 0
/// or past AGENT_MAX_LEN breaks it.
final class SSHAgentFrameReaderTests: XCTestCase {
    private func events(_ bytes: [UInt8], reader: inout SSHAgentFrameReader) -> [SSHAgentFrameReader.Event] {
        var found: [SSHAgentFrameReader.Event] = []
        bytes.withUnsafeBytes { buffer in
            while true {
                let event = reader.next(in: buffer)
                found.append(event)
                guard case .frame = event else { return }
            }
        }
        return found
    }

    func testTwoWholeFrames_areFoundInTurn_thenNeedMore() {
        var reader = SSHAgentFrameReader()
        let stream = Wire.frame(11) + Wire.frame(19, [1, 2])
        XCTAssertEqual(events(stream, reader: &reader), [.frame(4..<5), .frame(9..<12), .needMore])
    }

    func testALengthOrBodyCutShort_needsMore() {
        var reader = SSHAgentFrameReader()
        XCTAssertEqual(events([0, 0, 0], reader: &reader), [.needMore])
        XCTAssertEqual(events([0, 0, 0, 3, 13, 0], reader: &reader), [.needMore])
    }

    func testAnEmptyMessage_breaksTheFraming() {
        var reader = SSHAgentFrameReader()
        XCTAssertEqual(events([0, 0, 0, 0, 11], reader: &reader), [.badLength(0)])
    }

    func testALengthPastAgentMaxLen_breaksTheFraming_beforeTheBodyArrives() {
        var reader = SSHAgentFrameReader()
        XCTAssertEqual(events(Wire.uint32(256 * 1024 + 1), reader: &reader), [.badLength(256 * 1024 + 1)])
        var other = SSHAgentFrameReader()
        XCTAssertEqual(events([0xff, 0xff, 0xff, 0xff], reader: &other), [.badLength(UInt32.max)])
    }

    func testAMessageOfExactlyAgentMaxLen_isAFrame() {
        var reader = SSHAgentFrameReader()
        let body = [UInt8](repeating: 7, count: SSHAgentLimits.maxMessageBytes - 1)
        XCTAssertEqual(events(Wire.frame(27, body), reader: &reader).first, .frame(4..<(4 + SSHAgentLimits.maxMessageBytes)))
        XCTAssertEqual(SSHAgentLimits.maxFrameBytes, 4 + 256 * 1024)
    }

    func testCompact_movesTheTailToTheFront_andZeroesTheRest() {
        var reader = SSHAgentFrameReader()
        var buffer = Wire.frame(11) + [0, 0, 0, 9, 13]
        let filled = buffer.count
        _ = buffer.withUnsafeBytes { reader.next(in: $0) }
        let remaining = buffer.withUnsafeMutableBytes { reader.compact($0, filled: filled) }
        XCTAssertEqual(remaining, 5)
        XCTAssertEqual(Array(buffer.prefix(5)), [0, 0, 0, 9, 13])
        XCTAssertEqual(Array(buffer.dropFirst(5)), [0, 0, 0, 0, 0], "consumed bytes were left behind")
        XCTAssertEqual(reader.frameStart, 0)
    }
}
