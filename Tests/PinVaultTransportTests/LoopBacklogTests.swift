import Foundation
import Glibc
import Logging
import PinVaultDoor
import PinVaultSystem
import Synchronization
import XCTest

@testable import PinVaultTransport

/// The loop tells its `LoopBacklog`, before each message, whether more work waits behind
/// it — more requests in the same input, or events of other connections from the same
/// wait — which is what the engine's `SigningBudget` asks before it hands a signature
/// off the loop.
final class LoopBacklogTests: XCTestCase {
    /// 8-byte messages, each answered at once with one byte; records what the backlog
    /// said as each arrived.
    private final class Recorder: MessageHandler {
        let backlog: LoopBacklog
        let seen = Mutex<[Bool]>([])
        /// When set, a reply waits in `held` until the test sends it, as a reply finished
        /// off the loop (a signature handed to another thread) does.
        let holdsReplies: Bool
        let held = Mutex<[ReplyRoute]>([])

        init(backlog: LoopBacklog, holdsReplies: Bool = false) {
            self.backlog = backlog
            self.holdsReplies = holdsReplies
        }

        func makeFraming() -> any Framing { EightByteFrames() }

        func handle(message: UnsafeRawBufferPointer, route: ReplyRoute) -> MessageDisposition {
            let waiting = backlog.othersWaiting
            seen.withLock { $0.append(waiting) }
            if holdsReplies {
                held.withLock { $0.append(route) }
            } else {
                route.send { $0.append(1) }
            }
            return .accepted
        }

        func connectionClosed(_ connection: ConnectionID, peer: Peer) {}
        func keepsAlive(_ connection: ConnectionID) -> Bool { false }
    }

    /// Messages of 8 bytes in an input buffer that holds many (`FixedLengthFraming`'s
    /// holds one, so the loop could not see a second before it reads it).
    private struct EightByteFrames: Framing {
        private let frames = FixedLengthFraming(length: 8)
        var maxMessageBytes: Int { 4096 }
        func next(in received: UnsafeRawBufferPointer) -> FrameEvent { frames.next(in: received) }
        func compact(_ buffer: UnsafeMutableRawBufferPointer, filled: Int) -> Int { frames.compact(buffer, filled: filled) }
    }

    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "/pv-backlog-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    }

    override func tearDown() {
        _ = try? FileManager.default.removeItem(atPath: directory)
    }

    /// A loop over a recorder, and `count` connected peers it serves.
    private func serve(_ count: Int, holdingReplies: Bool = false) throws -> (loop: SteppedEventLoop, recorder: Recorder, peers: [Int32]) {
        let backlog = LoopBacklog()
        let recorder = Recorder(backlog: backlog, holdsReplies: holdingReplies)
        let listener = try UnixListener.bind(path: directory + "/socket", mode: 0o600)
        let limits = ServerLimits(maxConnections: 64, maxConnectionsPerUid: 64, idleTimeoutSeconds: 600, allowedGroups: [], adminGroup: nil)
        let loop = try SteppedEventLoop(
            door: Server.Door(listener: listener, handler: recorder), limits: limits, stats: ServerStats(),
            logger: Logger(label: "test"), backlog: backlog)
        var peers: [Int32] = []
        for _ in 0..<count {
            var fds: [Int32] = [-1, -1]
            XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue), 0, &fds), 0)
            XCTAssertNotNil(loop.adopt(fd: fds[0], peer: Peer(pid: 1, uid: 1000, gid: 1000, groups: [], isAdmin: false)))
            peers.append(fds[1])
        }
        return (loop, recorder, peers)
    }

    private func send(_ fd: Int32, messages: Int) {
        let bytes = [UInt8](repeating: 7, count: 8 * messages)
        XCTAssertEqual(bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }, bytes.count)
    }

    /// Turns the loop until `count` messages were handled (a few turns at most).
    private func turn(_ served: (loop: SteppedEventLoop, recorder: Recorder, peers: [Int32]), until count: Int) throws -> [Bool] {
        for _ in 0..<50 where served.recorder.seen.withLock({ $0.count }) < count {
            try served.loop.turn(timeoutMilliseconds: 100)
        }
        return served.recorder.seen.withLock { $0 }
    }

    func testALoneRequest_hasNothingWaitingBehindIt() throws {
        let served = try serve(1)
        defer { served.peers.forEach { close($0) } }
        send(served.peers[0], messages: 1)
        XCTAssertEqual(try turn(served, until: 1), [false])
        send(served.peers[0], messages: 1)
        XCTAssertEqual(try turn(served, until: 2), [false, false], "a client sending one request at a time never has one waiting")
    }

    func testPipelinedRequests_haveTheRestWaitingBehindThem() throws {
        let served = try serve(1)
        defer { served.peers.forEach { close($0) } }
        send(served.peers[0], messages: 3)
        XCTAssertEqual(try turn(served, until: 3), [true, true, false])
    }

    func testRequestsOfTwoConnectionsInOneWait_theFirstHasTheOtherWaiting() throws {
        let served = try serve(2)
        defer { served.peers.forEach { close($0) } }
        send(served.peers[0], messages: 1)
        send(served.peers[1], messages: 1)
        XCTAssertEqual(try turn(served, until: 2), [true, false])
    }

    /// A request read while replies finished off the loop are still to be delivered has
    /// them waiting behind it: with both connections' first replies delivered in one
    /// batch, the first connection's second request delays the other's reply; the last
    /// request read has nothing behind it.
    func testRequestsReadWhileOtherRepliesAreDelivered_haveThemWaiting() throws {
        let served = try serve(2, holdingReplies: true)
        defer { served.peers.forEach { close($0) } }
        send(served.peers[0], messages: 2)
        send(served.peers[1], messages: 2)
        XCTAssertEqual(try turn(served, until: 2), [true, true])
        for route in served.recorder.held.withLock({ routes in defer { routes = [] }; return routes }) {
            route.send { $0.append(1) }
        }
        XCTAssertEqual(try turn(served, until: 4), [true, true, true, false], "the third request was read with the other connection's reply still to deliver")
    }
}
