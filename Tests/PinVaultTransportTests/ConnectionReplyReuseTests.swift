import Glibc
import PinVaultCrypto
import PinVaultDoor
import PinVaultProtocol
import XCTest

@testable import PinVaultTransport

/// A connection writes every reply into one buffer, call after call: what was sent is
/// zeroed, a oneway reply is zeroed unsent, and no reply carries bytes of the last.
final class ConnectionReplyReuseTests: XCTestCase {
    private var fds: [Int32] = [-1, -1]
    private var state: ConnectionState!
    private let peer = Peer(pid: 1, uid: 1000, gid: 1000, groups: [], isAdmin: false)

    override func setUpWithError() throws {
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue), 0, &fds), 0)
        state = ConnectionState(input: try InputBuffer(limit: 4096), lastProgress: 0)
    }

    override func tearDown() {
        state.close()
        Glibc.close(fds[0])
        Glibc.close(fds[1])
    }

    /// Runs one call whose reply is `text` (plus its NUL) to the end, as the loop does.
    private func answer(_ text: String, oneway: Bool = false) -> ReplyRoute {
        let route = ReplyRoute(peer: peer, connection: 1, peerHasLeft: false, reply: state.reply) { _ in }
        if oneway { route.markOneway() }
        route.send { $0.append(utf8: text); $0.append(0) }
        state.enqueueReply()
        XCTAssertEqual(state.flush(to: fds[0]), .done)
        return route
    }

    private func received() -> String {
        var bytes = [UInt8](repeating: 0, count: 16384)
        let n = bytes.withUnsafeMutableBytes { recv(fds[1], $0.baseAddress, $0.count, 0) }
        return String(decoding: bytes.prefix(max(n, 0)), as: UTF8.self)
    }

    private func assertReplyBufferIsEmptyAndZero(line: UInt = #line) {
        let buffer = state.reply
        XCTAssertEqual(buffer.count, 0, line: line)
        XCTAssertTrue(buffer.withAllocatedBytes { $0.allSatisfy { $0 == 0 } }, "a sent reply left bytes behind", line: line)
    }

    func testSecondReply_isWrittenIntoTheSameBuffer_andCarriesNothingOfTheFirst() {
        let first = state.reply
        _ = answer(#"{"parameters":{"keyId":"ab","token":"SECRETSECRETSECRET"}}"#)
        XCTAssertEqual(received(), "{\"parameters\":{\"keyId\":\"ab\",\"token\":\"SECRETSECRETSECRET\"}}\0")
        assertReplyBufferIsEmptyAndZero()

        _ = answer(#"{"parameters":{}}"#)
        XCTAssertEqual(received(), "{\"parameters\":{}}\0")
        XCTAssertTrue(state.reply === first, "the buffer is reused")
        assertReplyBufferIsEmptyAndZero()
    }

    func testOnewayReply_isZeroedUnsent() {
        _ = answer(#"{"parameters":{"token":"SECRET"}}"#, oneway: true)
        assertReplyBufferIsEmptyAndZero()
        _ = answer(#"{"parameters":{}}"#)
        XCTAssertEqual(received(), "{\"parameters\":{}}\0")
    }

    func testSecondFinish_ofOneCall_writesNothing() {
        let route = answer(#"{"parameters":{}}"#)
        route.send { $0.append(utf8: "late") }
        XCTAssertEqual(state.reply.count, 0, "a late finish must not touch the buffer the next call uses")
        XCTAssertEqual(received(), "{\"parameters\":{}}\0")
    }

    func testLargeReply_isGivenUpOnceSent() {
        let large = state.reply
        _ = answer(#"{"parameters":{"x":""# + String(repeating: "a", count: 5000) + #""}}"#)
        XCTAssertEqual(received().utf8.count, 5000 + 24, "the reply and its NUL")
        XCTAssertFalse(state.reply === large, "a grown buffer is not kept")
        XCTAssertLessThanOrEqual(state.reply.capacity, ConnectionState.keptReplyCapacity)
        XCTAssertTrue(large.withAllocatedBytes { $0.allSatisfy { $0 == 0 } }, "the given-up buffer was sent, so zero")
    }
}
