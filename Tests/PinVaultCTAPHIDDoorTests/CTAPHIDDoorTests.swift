import Foundation
import Glibc
import Logging
import PinVaultCTAPHID
import PinVaultCTAPHIDDoor
import PinVaultDoor
import PinVaultSystem
import PinVaultTestKit
import PinVaultTransport
import XCTest

/// The CTAPHID door on the real event loop and a real Unix socket, before a scripted
/// authenticator (`StubAuthenticator`): CBOR to the authenticator and back, KEEPALIVE
/// while it works, CANCEL, CHANNEL_BUSY, and the channels' ends.
final class CTAPHIDDoorTests: XCTestCase {
    private var directory = ""
    private var path = ""
    private var authenticator = StubAuthenticator()
    private var loop: Thread?
    private let stop = ConditionFlag()
    private let stopped = ConditionFlag()

    override func setUpWithError() throws {
        var template = Array("/tmp/pinvault-ctaphid-XXXXXX".utf8CString)
        directory = String(cString: try XCTUnwrap(mkdtemp(&template)))
        path = directory + "/ctaphid.sock"
        authenticator = StubAuthenticator()
        let listener = try UnixListener.bind(path: path, mode: 0o600)
        let door = Server.Door(listener: listener, handler: CTAPHIDDoor(authenticator: authenticator))
        let limits = ServerLimits(maxConnections: 64, maxConnectionsPerUid: 64, idleTimeoutSeconds: 600, allowedGroups: [], adminGroup: nil)
        let (stop, stopped) = (stop, stopped)
        let thread = Thread {
            defer { stopped.set() }
            guard let served = try? SteppedEventLoop(door: door, limits: limits, stats: ServerStats(), logger: Logger(label: "test")) else {
                return
            }
            while !stop.isSet { _ = try? served.turn(timeoutMilliseconds: 20) }
            served.closeAll()
        }
        thread.start()
        loop = thread
    }

    override func tearDown() {
        stop.set()
        stopped.wait()
        unlink(path)
        unlink(UnixListener.lockPath(for: path))
        rmdir(directory)
    }

    private func connect() throws -> CTAPHIDClient {
        try CTAPHIDClient(path: path, timeoutSeconds: 20)
    }

    /// Waits (up to 20 s) until `condition` holds.
    private func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<2000 {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }

    func testGetInfoReachesTheAuthenticatorWithTheKernelsUid() throws {
        let device = try connect()
        let channel = try device.initialize()
        try device.send(command: 0x90, channel: channel, payload: [0x04])
        XCTAssertEqual(try device.receiveMessage(), .init(channel: channel, command: 0x90, payload: StubAuthenticator.getInfo))
        let request = try XCTUnwrap(authenticator.recorded.first)
        XCTAssertEqual(request.bytes, [0x04])
        XCTAssertEqual(request.channel.id, channel)
        XCTAssertEqual(request.channel.uid, getuid())
        XCTAssertEqual(request.channel.pid, getpid())
    }

    /// Each channel carries its device's power-up, on the door's monotonic clock: the
    /// moment its connection was accepted, the same for every channel and request of it.
    func testChannelsCarryTheirConnectionsPowerUp() throws {
        let before = MonotonicClock.milliseconds()
        let device = try connect()
        let channels = [try device.initialize(), try device.initialize()]
        for channel in channels {
            try device.send(command: 0x90, channel: channel, payload: [0x04])
            _ = try device.receiveMessage()
        }
        let later = try connect()
        let laterChannel = try later.initialize()
        try later.send(command: 0x90, channel: laterChannel, payload: [0x04])
        _ = try later.receiveMessage()
        let after = MonotonicClock.milliseconds()
        let seen = authenticator.recorded.map(\.channel)
        XCTAssertEqual(seen.count, 3)
        let poweredUp = seen[0].poweredUpAt
        XCTAssert((before...after).contains(poweredUp), "\(before) ≤ \(poweredUp) ≤ \(after)")
        XCTAssertEqual(seen[1].poweredUpAt, poweredUp, "another channel of the same connection")
        XCTAssertEqual(seen[2].id, laterChannel)
        XCTAssert((poweredUp...after).contains(seen[2].poweredUpAt), "the later connection came up later")
    }

    func testKeepalivesGoOutWhileARequestIsPending() throws {
        let device = try connect()
        let channel = try device.initialize()
        try device.send(command: 0x90, channel: channel, payload: [StubAuthenticator.hold, 1, 2, 3])
        // Two KEEPALIVEs, whenever they come: the request is still pending.
        for _ in 0..<2 {
            let report = try device.receiveReport()
            XCTAssertEqual(Array(report[0..<8]), CTAPHIDClient.header(channel) + [0xBB, 0, 1, 1], "KEEPALIVE, processing")
        }
        let held = try XCTUnwrap(authenticator.heldChannels.first)
        authenticator.release(held, with: [0x00, 0xA0])
        var keepalives: [UInt8] = []
        XCTAssertEqual(try device.receiveMessage(keepalives: &keepalives), .init(channel: channel, command: 0x90, payload: [0x00, 0xA0]))
        XCTAssertTrue(keepalives.allSatisfy { $0 == 1 })
    }

    func testCancelEndsThePendingRequestWithKeepaliveCancel() throws {
        let device = try connect()
        let channel = try device.initialize()
        try device.send(command: 0x90, channel: channel, payload: [StubAuthenticator.hold])
        XCTAssertTrue(eventually { !authenticator.heldChannels.isEmpty })
        try device.send(command: 0x91, channel: channel, payload: [])
        var keepalives: [UInt8] = []
        XCTAssertEqual(try device.receiveMessage(keepalives: &keepalives), .init(channel: channel, command: 0x90, payload: [0x2D]))
        XCTAssertEqual(authenticator.cancelledChannels.map(\.id), [channel])
    }

    func testAnotherChannelIsBusyWhileARequestIsPending() throws {
        let device = try connect()
        let first = try device.initialize()
        let second = try device.initialize()
        try device.send(command: 0x90, channel: first, payload: [StubAuthenticator.hold])
        XCTAssertTrue(eventually { !authenticator.heldChannels.isEmpty })
        try device.send(command: 0x81, channel: second, payload: [1])
        var keepalives: [UInt8] = []
        XCTAssertEqual(try device.receiveMessage(keepalives: &keepalives).error, 0x06)
        // Another connection is another device: not busy.
        let other = try connect()
        let channel = try other.initialize()
        try other.send(command: 0x90, channel: channel, payload: [0x04])
        XCTAssertEqual(try other.receiveMessage().payload, StubAuthenticator.getInfo)
        authenticator.release(try XCTUnwrap(authenticator.heldChannels.first))
        XCTAssertEqual(try device.receiveMessage(keepalives: &keepalives).payload, [0x00])
    }

    func testAConnectionsEndClosesItsChannelsAndDropsTheLateReply() throws {
        let device = try connect()
        let channels = [try device.initialize(), try device.initialize()]
        try device.send(command: 0x90, channel: channels[0], payload: [StubAuthenticator.hold])
        XCTAssertTrue(eventually { !authenticator.heldChannels.isEmpty })
        device.stream.shutdownBoth()
        XCTAssertTrue(eventually { Set(authenticator.closedChannels.map(\.id)) == Set(channels) })
        // The reply comes after its connection went: dropped, and the door serves on.
        authenticator.release(try XCTUnwrap(authenticator.heldChannels.first))
        let next = try connect()
        let channel = try next.initialize()
        try next.send(command: 0x81, channel: channel, payload: [7])
        XCTAssertEqual(try next.receiveMessage().payload, [7])
    }

    func testReInitEndsTheChannelsState() throws {
        let device = try connect()
        let channel = try device.initialize()
        try device.send(command: 0x86, channel: channel, payload: [1, 2, 3, 4, 5, 6, 7, 8])
        let answer = try device.receiveMessage()
        XCTAssertEqual(answer.channel, channel)
        XCTAssertEqual(Array(answer.payload[8..<12]), CTAPHIDClient.header(channel))
        XCTAssertTrue(eventually { authenticator.closedChannels.map(\.id) == [channel] })
    }
}

/// A flag one thread sets and another waits for.
final class ConditionFlag: @unchecked Sendable {
    private let condition = NSCondition()
    private var value = false

    var isSet: Bool {
        condition.lock()
        defer { condition.unlock() }
        return value
    }

    func set() {
        condition.lock()
        value = true
        condition.broadcast()
        condition.unlock()
    }

    func wait() {
        condition.lock()
        while !value { condition.wait() }
        condition.unlock()
    }
}
