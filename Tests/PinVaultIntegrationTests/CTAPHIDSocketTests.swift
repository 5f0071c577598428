import Glibc
import PinVaultTestKit
import XCTest

/// pinvaultd's CTAPHID socket, over the real socket with scripted 64-byte reports: INIT,
/// PING, WINK, CBOR reaching the authenticator, and every malformed report answered with
/// its CTAPHID error while the daemon keeps serving.
final class CTAPHIDSocketTests: DaemonTestCase {
    private let broadcast = CTAPHIDClient.broadcast

    private func connect() throws -> CTAPHIDClient {
        try CTAPHIDClient(path: daemon.ctaphidSocketPath, timeoutSeconds: 20)
    }

    func testInitAllocatesFreshChannelsAndPingEchoes() throws {
        try startDaemon()
        let device = try connect()
        let first = try device.initialize()
        let second = try device.initialize(nonce: [8, 7, 6, 5, 4, 3, 2, 1])
        XCTAssertNotEqual(first, second)
        for channel in [first, second] {
            XCTAssertNotEqual(channel, 0)
            XCTAssertNotEqual(channel, broadcast)
        }
        let payload = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try device.send(command: 0x81, channel: first, payload: payload)
        XCTAssertEqual(try device.receiveMessage(), .init(channel: first, command: 0x81, payload: payload))
        try device.send(command: 0x88, channel: second, payload: [])
        XCTAssertEqual(try device.receiveMessage(), .init(channel: second, command: 0x88, payload: []))
    }

    func testACBORRequestReachesTheAuthenticator() throws {
        try startDaemon()
        let device = try connect()
        let channel = try device.initialize()
        // authenticatorGetInfo, answered by the daemon's authenticator: CTAP2_OK and its
        // CBOR map (versions among it), in a CBOR message on the caller's channel.
        try device.send(command: 0x90, channel: channel, payload: [0x04])
        let answer = try device.receiveMessage()
        XCTAssertEqual(answer.channel, channel)
        XCTAssertEqual(answer.command, 0x90)
        XCTAssertEqual(answer.payload.first, 0x00, "\(answer.payload)")
        XCTAssertNotNil(answer.payload.firstRange(of: Array("FIDO_2_1".utf8)), "\(answer.payload)")
    }

    func testEveryMalformedReportGetsItsError() throws {
        try startDaemon()
        let device = try connect()
        let channel = try device.initialize()
        func assertError(_ code: UInt8, on errorChannel: UInt32? = nil, _ what: String) throws {
            let answer = try device.receiveMessage()
            XCTAssertEqual(answer.error, code, "\(what): \(answer)")
            XCTAssertEqual(answer.channel, errorChannel ?? channel, what)
        }
        try device.send(command: 0x86, channel: broadcast, payload: [1, 2, 3])
        try assertError(0x03, on: broadcast, "INIT with 3 bytes")
        try device.send(command: 0x81, channel: broadcast, payload: [1])
        try assertError(0x0B, on: broadcast, "PING on the broadcast channel")
        try device.send(command: 0x81, channel: channel &+ 1, payload: [1])
        try assertError(0x0B, on: channel &+ 1, "a channel never allocated")
        try device.send(command: 0x81, channel: 0, payload: [1])
        try assertError(0x0B, on: 0, "channel 0")
        try device.send(command: 0x83, channel: channel, payload: [1])
        try assertError(0x01, "CTAPHID_MSG (no CTAP1)")
        try device.send(command: 0xC2, channel: channel, payload: [])
        try assertError(0x01, "an unknown command")
        try device.send(command: 0x81, channel: channel, payload: [1], declaredLength: 7610)
        try assertError(0x03, "7610 bytes declared")
        try device.send(command: 0x90, channel: channel, payload: [])
        try assertError(0x03, "an empty CBOR message")
        // A continuation out of sequence.
        var reports = CTAPHIDClient.reports(command: 0x81, channel: channel, payload: [UInt8](repeating: 7, count: 200))
        reports[1][4] = 5
        try device.send(report: reports[0])
        try device.send(report: reports[1])
        try assertError(0x04, "sequence 5 where 0 was due")
        // Another channel while a message is half received.
        let other = try device.initialize()
        try device.send(report: reports[0])
        try device.send(command: 0x81, channel: other, payload: [9])
        try assertError(0x06, on: other, "the other channel while this one receives")
        // A stray continuation is ignored; the message then finishes.
        try device.send(report: CTAPHIDClient.header(other) + [0] + [UInt8](repeating: 0, count: 59))
        reports = CTAPHIDClient.reports(command: 0x81, channel: channel, payload: [UInt8](repeating: 7, count: 200))
        for report in reports.dropFirst() { try device.send(report: report) }
        XCTAssertEqual(try device.receiveMessage().payload, [UInt8](repeating: 7, count: 200))
        // And the daemon still serves Varlink.
        XCTAssertNil(try client.vault("GetPolicy").error)
    }

    func testChannelExhaustionStaysBounded() throws {
        try startDaemon()
        let device = try connect()
        var channels: [UInt32] = []
        for index in 0..<2000 {
            channels.append(try device.initialize(nonce: [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: 8)))
        }
        // The newest channels work; the oldest was reused long ago.
        let newest = try XCTUnwrap(channels.last)
        try device.send(command: 0x81, channel: newest, payload: [42])
        XCTAssertEqual(try device.receiveMessage().payload, [42])
        try device.send(command: 0x81, channel: channels[0], payload: [42])
        XCTAssertEqual(try device.receiveMessage().error, 0x0B, "the first channel was reused, not kept")
        XCTAssertEqual(Set(channels).count, channels.count, "every INIT got a fresh channel id")
    }

    func testAClientThatLeavesMidMessageCostsNothing() throws {
        try startDaemon()
        for _ in 0..<20 {
            let leaving = try connect()
            let channel = try leaving.initialize()
            let reports = CTAPHIDClient.reports(command: 0x90, channel: channel, payload: [UInt8](repeating: 1, count: 1000))
            try leaving.send(report: reports[0])
            try leaving.stream.write(Array(reports[1].prefix(30)))  // half a report, then gone
            leaving.shutdownBoth()
        }
        let device = try connect()
        let channel = try device.initialize()
        try device.send(command: 0x81, channel: channel, payload: [1, 2, 3])
        XCTAssertEqual(try device.receiveMessage().payload, [1, 2, 3])
        XCTAssertTrue(try eventually(timeout: 20) {
            // This Varlink client and `device`.
            try client.succeeding("GetStats").object("counters")?.int("activeConnections") == 2
        }, "the departed connections were closed")
    }

    func testAHundredConnectionsAtOnce() throws {
        try startDaemon()
        var devices: [(CTAPHIDClient, UInt32)] = []
        for _ in 0..<100 {
            let device = try connect()
            devices.append((device, try device.initialize()))
        }
        for (index, (device, channel)) in devices.enumerated() {
            try device.send(command: 0x81, channel: channel, payload: [UInt8(index)])
        }
        for (index, (device, channel)) in devices.enumerated() {
            XCTAssertEqual(try device.receiveMessage(), .init(channel: channel, command: 0x81, payload: [UInt8(index)]))
        }
    }
}

extension CTAPHIDClient {
    func shutdownBoth() { stream.shutdownBoth() }
}
