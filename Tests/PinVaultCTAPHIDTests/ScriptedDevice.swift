import PinVaultCTAPHID
import PinVaultCrypto
import XCTest

/// A `CTAPHIDDevice` driven by scripted 64-byte reports, with a fake clock and predictable
/// channel ids: what it sends comes back as whole reports.
struct ScriptedDevice {
    var device: CTAPHIDDevice
    var now: Int64 = 1_000
    private(set) var nextID: UInt32

    init(limits: CTAPHIDLimits = CTAPHIDLimits(), firstChannelID: UInt32 = 0x0100_0000) {
        let counter = Counter(firstChannelID)
        nextID = firstChannelID
        device = CTAPHIDDevice(limits: limits, version: (1, 2, 3)) { counter.next() }
    }

    final class Counter {
        var value: UInt32
        init(_ value: UInt32) { self.value = value }
        func next() -> UInt32 {
            defer { value &+= 1 }
            return value
        }
    }

    /// Sends one report; returns the reports the device answered and its events.
    mutating func send(_ report: [UInt8]) -> (reports: [[UInt8]], events: [CTAPHIDDevice.Event]) {
        precondition(report.count == 64)
        let output = ReplyBuffer()
        let now = now
        let events = report.withUnsafeBytes { device.receive($0, now: now, output: output) }
        return (Self.split(output), events)
    }

    /// Sends each report of a whole message.
    mutating func send(message: [UInt8], command: UInt8, on channel: UInt32) -> (reports: [[UInt8]], events: [CTAPHIDDevice.Event]) {
        var reports: [[UInt8]] = []
        var events: [CTAPHIDDevice.Event] = []
        for report in Self.frame(message, command: command, channel: channel) {
            let answer = send(report)
            reports += answer.reports
            events += answer.events
        }
        return (reports, events)
    }

    mutating func tick(status: UInt8 = 1) -> (reports: [[UInt8]], next: Int64?) {
        let output = ReplyBuffer()
        let next = device.tick(now: now, output: output) { _ in status }
        return (Self.split(output), next)
    }

    mutating func reply(_ bytes: [UInt8], on channel: UInt32) -> [[UInt8]] {
        let response = ReplyBuffer()
        bytes.withUnsafeBytes { response.append($0) }
        let output = ReplyBuffer()
        device.replied(channel: channel, response: response, output: output)
        XCTAssertEqual(response.count, 0, "the response is zeroed once framed")
        return Self.split(output)
    }

    /// INIT on the broadcast channel; returns the channel allocated.
    mutating func initialize(nonce: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]) -> UInt32 {
        let answer = send(message: nonce, command: 0x86, on: 0xFFFF_FFFF)
        guard let (channel, command, payload) = Self.message(answer.reports), command == 0x86, payload.count == 17 else {
            XCTFail("no INIT answer: \(answer.reports)")
            return 0
        }
        XCTAssertEqual(channel, 0xFFFF_FFFF)
        XCTAssertEqual(Array(payload[0..<8]), nonce)
        return Self.channel(Array(payload[8..<12]))
    }

    static func split(_ output: ReplyBuffer) -> [[UInt8]] {
        let bytes = output.copyBytes()
        XCTAssertEqual(bytes.count % 64, 0, "whole reports only")
        return stride(from: 0, to: bytes.count, by: 64).map { Array(bytes[$0..<min($0 + 64, bytes.count)]) }
    }

    static func channel(_ bytes: [UInt8]) -> UInt32 {
        bytes.prefix(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func header(_ channel: UInt32) -> [UInt8] {
        [UInt8(channel >> 24), UInt8(channel >> 16 & 0xFF), UInt8(channel >> 8 & 0xFF), UInt8(channel & 0xFF)]
    }

    /// The reports of a message, as a client sends them.
    static func frame(_ message: [UInt8], command: UInt8, channel: UInt32, declaredLength: Int? = nil) -> [[UInt8]] {
        let length = declaredLength ?? message.count
        var first = header(channel) + [command, UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + message.prefix(57)
        first += [UInt8](repeating: 0, count: 64 - first.count)
        var reports = [first]
        var offset = 57
        var sequence: UInt8 = 0
        while offset < message.count {
            var report = header(channel) + [sequence] + message[offset..<min(offset + 59, message.count)]
            report += [UInt8](repeating: 0, count: 64 - report.count)
            reports.append(report)
            offset += 59
            sequence += 1
        }
        return reports
    }

    /// Reassembles one message from reports; nil when they are not one message.
    static func message(_ reports: [[UInt8]]) -> (channel: UInt32, command: UInt8, payload: [UInt8])? {
        guard let first = reports.first, first[4] & 0x80 != 0 else { return nil }
        let length = Int(first[5]) << 8 | Int(first[6])
        var payload = Array(first[7..<64])
        for (index, report) in reports.dropFirst().enumerated() {
            guard channel(report) == channel(first), report[4] == UInt8(index) else { return nil }
            payload += report[5..<64]
        }
        guard payload.count >= length else { return nil }
        return (channel(first), first[4], Array(payload.prefix(length)))
    }

    /// The CTAPHID_ERROR code of a single-report answer.
    static func error(_ reports: [[UInt8]]) -> UInt8? {
        guard reports.count == 1, let (_, command, payload) = message(reports), command == 0xBF, payload.count == 1 else { return nil }
        return payload[0]
    }
}
