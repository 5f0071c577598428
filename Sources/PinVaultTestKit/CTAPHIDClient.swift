import Glibc

/// Whatever carries CTAPHID's 64-byte reports each way: the daemon's socket
/// (`CTAPHIDClient`), or a virtual HID device whose kernel a test plays (pinvault-uhid's
/// tests). Messages are framed and reassembled over it here, independently of the
/// daemon's own code.
public protocol CTAPHIDReports: AnyObject {
    /// Sends one report (exactly 64 bytes).
    func send(report: [UInt8]) throws
    /// The next 64-byte report.
    func receiveReport() throws -> [UInt8]
}

/// A raw CTAPHID client over the daemon's CTAPHID socket: 64-byte reports each way.
public final class CTAPHIDClient: CTAPHIDReports {
    public static let broadcast: UInt32 = 0xFFFF_FFFF
    public let stream: UnixStream

    public init(path: String, timeoutSeconds: Int = 30) throws {
        stream = try UnixStream(path: path, timeoutSeconds: timeoutSeconds)
    }

    /// One message as received: its channel, command byte (top bit set) and payload.
    public struct Message: Equatable, CustomStringConvertible {
        public let channel: UInt32
        public let command: UInt8
        public let payload: [UInt8]
        public init(channel: UInt32, command: UInt8, payload: [UInt8]) {
            self.channel = channel
            self.command = command
            self.payload = payload
        }
        public var description: String { "channel \(channel) command 0x\(String(command, radix: 16)) payload \(payload)" }
        /// The CTAPHID_ERROR code, when this is one.
        public var error: UInt8? { command == 0xBF && payload.count == 1 ? payload[0] : nil }
    }

    /// Sends one report (exactly 64 bytes).
    public func send(report: [UInt8]) throws {
        guard report.count == 64 else { throw TestKitError("a report is 64 bytes, not \(report.count)") }
        try stream.write(report)
    }

    /// The reports of a message, as a FIDO client frames it.
    public static func reports(command: UInt8, channel: UInt32, payload: [UInt8], declaredLength: Int? = nil) -> [[UInt8]] {
        let length = declaredLength ?? payload.count
        var first = header(channel) + [command, UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + payload.prefix(57)
        first += [UInt8](repeating: 0, count: 64 - first.count)
        var reports = [first]
        var offset = 57
        var sequence: UInt8 = 0
        while offset < payload.count {
            var report = header(channel) + [sequence] + payload[offset..<min(offset + 59, payload.count)]
            report += [UInt8](repeating: 0, count: 64 - report.count)
            reports.append(report)
            offset += 59
            sequence &+= 1
        }
        return reports
    }

    public static func header(_ channel: UInt32) -> [UInt8] {
        [UInt8(channel >> 24), UInt8(channel >> 16 & 0xFF), UInt8(channel >> 8 & 0xFF), UInt8(channel & 0xFF)]
    }

    /// The next 64-byte report.
    public func receiveReport() throws -> [UInt8] {
        while stream.unread.count < 64 { try stream.receiveMore() }
        let report = Array(stream.unread.prefix(64))
        stream.consume(64)
        return report
    }
}

extension CTAPHIDReports {
    /// Sends `payload` as `command` on `channel`, in as many reports as it takes;
    /// `declaredLength` overrides the length the first report announces.
    public func send(command: UInt8, channel: UInt32, payload: [UInt8], declaredLength: Int? = nil) throws {
        for report in CTAPHIDClient.reports(command: command, channel: channel, payload: payload, declaredLength: declaredLength) {
            try send(report: report)
        }
    }

    /// The next whole message; KEEPALIVEs are counted into `keepalives` and skipped, up to
    /// 300 of them (30 s of a request that never ends: then it throws, rather than wait on).
    public func receiveMessage(keepalives: inout [UInt8]) throws -> CTAPHIDClient.Message {
        var first = try receiveReport()
        while first[4] == 0xBB {
            keepalives.append(first[7])
            guard keepalives.count <= 300 else { throw TestKitError("300 KEEPALIVEs and no answer") }
            first = try receiveReport()
        }
        guard first[4] & 0x80 != 0 else { throw TestKitError("a continuation report where a message begins: \(first)") }
        let channel = first.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let length = Int(first[5]) << 8 | Int(first[6])
        var payload = Array(first[7..<64])
        var sequence: UInt8 = 0
        while payload.count < length {
            let next = try receiveReport()
            let nextChannel = next.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard nextChannel == channel, next[4] == sequence else { throw TestKitError("out of sequence: \(next)") }
            payload += next[5..<64]
            sequence &+= 1
        }
        return CTAPHIDClient.Message(channel: channel, command: first[4], payload: Array(payload.prefix(length)))
    }

    public func receiveMessage() throws -> CTAPHIDClient.Message {
        var keepalives: [UInt8] = []
        return try receiveMessage(keepalives: &keepalives)
    }

    /// INIT on the broadcast channel with `nonce`; returns the channel allocated, after
    /// checking the nonce came back.
    public func initialize(nonce: [UInt8] = [0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88]) throws -> UInt32 {
        try send(command: 0x86, channel: CTAPHIDClient.broadcast, payload: nonce)
        let answer = try receiveMessage()
        guard answer.channel == CTAPHIDClient.broadcast, answer.command == 0x86, answer.payload.count == 17,
              Array(answer.payload.prefix(8)) == nonce
        else { throw TestKitError("not an INIT answer to this nonce: \(answer)") }
        return answer.payload[8..<12].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }
}
