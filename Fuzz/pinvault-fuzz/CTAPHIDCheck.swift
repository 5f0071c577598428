import PinVaultCTAPHID
import PinVaultCrypto

/// `PINVAULT_FUZZ_TARGET=ctaphid`: a script of reports, clock steps, authenticator replies
/// and reconnects run through one `CTAPHIDDevice` — malformed packets, wrong sequence
/// numbers, INITs in a loop, oversize lengths, replies late or for nobody — checking after
/// every step what must always hold: whole reports out, the channel bound, one request
/// pending at most, every message within the size limit. At the end the device still
/// serves: a fresh INIT and PING are answered.
///
/// Each step is one opcode byte (its low 2 bits) and its operands:
/// 0 a report: a channel selector byte (broadcast, an allocated channel, or the 4 bytes
///   that follow) and the report's other 60 bytes (zero-padded);
/// 1 the clock moves by the next byte × 16 ms, and the device ticks;
/// 2 the authenticator replies to the pending request with the next 2 bytes' length of
///   filler (up to 8,191 bytes, past the limit too);
/// 3 the connection closes and a new one opens.
enum CTAPHIDCheck {
    private static let limits = CTAPHIDLimits(maxChannels: 8)

    static func run(_ input: UnsafeRawBufferPointer) {
        var script = FuzzScript(input)
        var nextID: UInt32 = 0x0100_0000
        var device = CTAPHIDDevice(limits: limits) {
            nextID &+= 0x0101_0101
            return nextID
        }
        var now: Int64 = 0
        var channels: [UInt32] = []
        var pending: UInt32?
        let output = ReplyBuffer(capacity: 1024)

        while let opcode = script.byte() {
            output.zero()
            switch opcode & 3 {
            case 0:
                let selector = script.byte() ?? 0
                let channel: UInt32
                switch selector % 4 {
                case 0: channel = 0xFFFF_FFFF
                case 1, 2: channel = channels.isEmpty ? 0xFFFF_FFFF : channels[Int(selector / 4) % channels.count]
                default: channel = script.bytes(4).reduce(0) { $0 << 8 | UInt32($1) }
                }
                var report = [UInt8](repeating: 0, count: 64)
                report[0] = UInt8(channel >> 24)
                report[1] = UInt8(channel >> 16 & 0xFF)
                report[2] = UInt8(channel >> 8 & 0xFF)
                report[3] = UInt8(channel & 0xFF)
                for (index, byte) in script.bytes(60).enumerated() { report[4 + index] = byte }
                let events = report.withUnsafeBytes { device.receive($0, now: now, output: output) }
                for event in events {
                    switch event {
                    case .cbor(let on, let request):
                        check(pending == nil, "a second CBOR request while one is pending")
                        check((1...limits.maxMessageSize).contains(request.count), "a CBOR request of \(request.count) bytes")
                        pending = on
                    case .cancel(let on):
                        check(pending == on, "CANCEL for a channel with nothing pending")
                    case .channelClosed(let on):
                        if pending == on { pending = nil }
                        channels.removeAll { $0 == on }
                    case .wink:
                        break
                    }
                }
                channels += allocated(in: output, nonce: Array(report[7..<15]))
            case 1:
                now += Int64(script.byte() ?? 0) * 16
                let due = device.tick(now: now, output: output) { _ in 1 }
                check(due.map { $0 > now } ?? true, "a tick due in the past")
            case 2:
                let length = script.bytes(2).reduce(0) { $0 << 8 | Int($1) } & 0x1FFF
                let response = ReplyBuffer(capacity: length)
                for index in 0..<length { response.append(UInt8(truncatingIfNeeded: index)) }
                let sent = device.replied(channel: pending ?? 0, response: response, output: output)
                check(sent == (pending != nil), "a reply sent for nothing pending, or dropped while pending")
                check(response.count == 0, "a response left unzeroed")
                pending = nil
            default:
                _ = device.close()
                check(device.channelCount == 0 && !device.isBusy, "a closed device kept state")
                channels = []
                pending = nil
            }
            checkReports(output)
            check(device.channelCount <= limits.maxChannels, "\(device.channelCount) channels")
            check(device.hasPendingRequest == (pending != nil), "the device and the script disagree on what is pending")
        }
        keepsServing(&device, now: now + 60_000)
    }

    /// Every report whole; each message's declared length within the limit.
    private static func checkReports(_ output: ReplyBuffer) {
        output.withUnsafeBytes { bytes in
            check(bytes.count % CTAPHID.reportSize == 0, "\(bytes.count) bytes out: not whole reports")
            var offset = 0
            while offset < bytes.count {
                if bytes[offset + 4] & 0x80 != 0 {
                    let length = Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6])
                    check(length <= CTAPHID.maximumMessageSize, "a message of \(length) bytes out")
                }
                offset += CTAPHID.reportSize
            }
        }
    }

    /// The channels INIT answers in `output` allocated (for the nonce sent).
    private static func allocated(in output: ReplyBuffer, nonce: [UInt8]) -> [UInt32] {
        output.withUnsafeBytes { bytes in
            guard bytes.count >= 64, bytes[4] == 0x86, bytes[5] == 0, bytes[6] == 17, Array(bytes[7..<15]) == nonce else { return [] }
            return [bytes[15..<19].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }]
        }
    }

    /// After anything, after the transaction timeout: INIT and PING are answered.
    private static func keepsServing(_ device: inout CTAPHIDDevice, now: Int64) {
        let output = ReplyBuffer()
        _ = device.tick(now: now, output: output) { _ in 1 }
        if device.hasPendingRequest { return }  // the authenticator still works on a request: busy is right
        output.zero()
        var initialize = [0xFF, 0xFF, 0xFF, 0xFF, 0x86, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8] + [UInt8](repeating: 0, count: 49)
        _ = initialize.withUnsafeBytes { device.receive($0, now: now, output: output) }
        let channels = allocated(in: output, nonce: [1, 2, 3, 4, 5, 6, 7, 8])
        check(channels.count == 1, "INIT unanswered at the end")
        output.zero()
        initialize = [UInt8](repeating: 0, count: 64)
        let channel = channels[0]
        initialize[0...6] = [UInt8(channel >> 24), UInt8(channel >> 16 & 0xFF), UInt8(channel >> 8 & 0xFF), UInt8(channel & 0xFF), 0x81, 0, 1]
        initialize[7] = 0x5A
        _ = initialize.withUnsafeBytes { device.receive($0, now: now, output: output) }
        output.withUnsafeBytes { bytes in
            check(bytes.count == 64 && bytes[4] == 0x81 && bytes[7] == 0x5A, "PING unanswered at the end")
        }
    }

    private static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { FuzzHarness.trap("ctaphid: \(message())") }
    }
}
