import PinVaultCrypto

/// One virtual CTAPHID device — one connection — as a value-type state machine: it takes
/// 64-byte reports and the clock, writes the reports to send into a `ReplyBuffer`, and
/// returns what the authenticator must hear (`Event`). No I/O, no threads, no sleeps: the
/// door feeds it reports as they arrive, `tick`s it when its deadline comes, and hands it
/// the authenticator's replies.
///
/// The device has one transaction at a time (CTAP 2.1 §11.2.9): a message being received
/// (PING, CBOR) or a CBOR request waiting for its reply. Another channel's request meanwhile
/// is answered ERR_CHANNEL_BUSY. So it holds at most one reassembly buffer, of at most
/// `limits.maxMessageSize`, and at most `limits.maxChannels` channel ids.
public struct CTAPHIDDevice {
    /// What the authenticator must hear.
    public enum Event {
        /// A whole CBOR message for it (it owns the bytes; they are zeroed when released).
        case cbor(channel: UInt32, request: SecretBytes)
        /// CTAPHID_CANCEL for the request pending on this channel.
        case cancel(channel: UInt32)
        /// The channel's state ends: re-INITed, or reused for another INIT.
        case channelClosed(channel: UInt32)
        case wink(channel: UInt32)
    }

    /// A message being received: its bytes so far, in secret memory (a CBOR message may
    /// carry an encrypted PIN).
    private struct Reception {
        let channel: UInt32
        let command: CTAPHIDCommand
        let message: SecretBytes
        var received: Int
        var nextSequence: UInt8
        let deadline: Int64
    }

    private enum Transaction {
        case none
        case receiving(Reception)
        case pending(channel: UInt32, nextKeepalive: Int64)
    }

    /// CTAPHID_INIT's protocol version.
    static let protocolVersion: UInt8 = 2
    /// CAPABILITY_WINK | CAPABILITY_CBOR | CAPABILITY_NMSG: NMSG says that CTAPHID_MSG (CTAP1/U2F)
    /// is not implemented, so that a client never falls back to it.
    public static let capabilities: UInt8 = 0x01 | 0x04 | 0x08
    private static let initialisationPayload = CTAPHID.reportSize - 7
    private static let continuationPayload = CTAPHID.reportSize - 5

    public let limits: CTAPHIDLimits
    private let version: (major: UInt8, minor: UInt8, build: UInt8)
    private let makeChannelID: () -> UInt32
    /// The channels allocated, each with when it was last used (a counter, not a clock).
    private var channels: [UInt32: UInt64] = [:]
    private var uses: UInt64 = 0
    private var transaction = Transaction.none

    /// `makeChannelID` gives random candidates for new channel ids (those already in use,
    /// 0 and the broadcast id are skipped); `version` is what INIT reports.
    public init(
        limits: CTAPHIDLimits = CTAPHIDLimits(), version: (major: UInt8, minor: UInt8, build: UInt8) = (1, 0, 0),
        makeChannelID: @escaping () -> UInt32
    ) {
        self.limits = limits
        self.version = version
        self.makeChannelID = makeChannelID
    }

    /// Channels allocated now.
    public var channelCount: Int { channels.count }
    /// Whether a CBOR request waits for the authenticator's reply.
    public var hasPendingRequest: Bool {
        if case .pending = transaction { return true }
        return false
    }
    /// Whether the device is in a transaction (receiving, or a request pending).
    public var isBusy: Bool {
        if case .none = transaction { return false }
        return true
    }

    /// One report from the client. Reports of another length than `CTAPHID.reportSize` are
    /// ignored (the door never passes one).
    public mutating func receive(_ report: UnsafeRawBufferPointer, now: Int64, output: ReplyBuffer) -> [Event] {
        guard report.count == CTAPHID.reportSize else { return [] }
        let channel = UInt32(report[0]) << 24 | UInt32(report[1]) << 16 | UInt32(report[2]) << 8 | UInt32(report[3])
        let commandByte = report[4]
        guard commandByte & 0x80 != 0 else {
            return continuation(channel: channel, sequence: commandByte, report: report, now: now, output: output)
        }
        let length = Int(report[5]) << 8 | Int(report[6])
        let payload = UnsafeRawBufferPointer(rebasing: report[7...])
        guard channel != 0 else {
            Self.send(error: .invalidChannel, on: channel, to: output)
            return []
        }
        let command = CTAPHIDCommand(rawValue: commandByte & 0x7F)
        if command == .initialize {
            return initialize(channel: channel, length: length, payload: payload, output: output)
        }
        guard channel != .ctaphidBroadcast, channels[channel] != nil else {
            Self.send(error: .invalidChannel, on: channel, to: output)
            return []
        }
        switch transaction {
        case .none:
            break
        case .receiving(let reception):
            if reception.channel == channel {
                // A new message before the last one was whole: that one is lost.
                abortReception()
                Self.send(error: .invalidSequence, on: channel, to: output)
            } else {
                Self.send(error: .channelBusy, on: channel, to: output)
            }
            return []
        case .pending(let pending, _):
            if command == .cancel {
                // A CANCEL for nothing pending on its channel is ignored, as CTAP says.
                return pending == channel ? [.cancel(channel: channel)] : []
            }
            Self.send(error: .channelBusy, on: channel, to: output)
            return []
        }
        touch(channel)
        switch command {
        case .ping, .cbor:
            return begin(command: command ?? .ping, channel: channel, length: length, payload: payload, now: now, output: output)
        case .wink:
            guard length == 0 else {
                Self.send(error: .invalidLength, on: channel, to: output)
                return []
            }
            Self.send(command: .wink, on: channel, message: UnsafeRawBufferPointer(start: nil, count: 0), to: output)
            return [.wink(channel: channel)]
        case .cancel:
            return []  // nothing pending
        case .initialize, .msg, .lock, .keepalive, .error, nil:
            Self.send(error: .invalidCommand, on: channel, to: output)
            return []
        }
    }

    /// The authenticator's reply to the CBOR request pending on `channel`: sent in reports,
    /// then zeroed. Dropped (zeroed, not sent) when nothing is pending there any more (the
    /// channel was re-INITed or reused). Returns whether it was sent.
    @discardableResult
    public mutating func replied(channel: UInt32, response: ReplyBuffer, output: ReplyBuffer) -> Bool {
        defer { response.zero() }
        guard case .pending(let pending, _) = transaction, pending == channel else { return false }
        transaction = .none
        if response.count == 0 || response.count > limits.maxMessageSize {
            Self.send(command: .cbor, on: channel, byte: 0x7F, to: output)  // CTAP1_ERR_OTHER
        } else {
            response.withUnsafeBytes { Self.send(command: .cbor, on: channel, message: $0, to: output) }
        }
        return true
    }

    /// The clock moved: a message whose continuation packets are late ends with
    /// ERR_MSG_TIMEOUT, and a pending request gets its KEEPALIVE (`status`) when one is due.
    /// Returns when the device next wants a `tick` (nil: not until something arrives).
    public mutating func tick(now: Int64, output: ReplyBuffer, status: (UInt32) -> UInt8) -> Int64? {
        switch transaction {
        case .none:
            return nil
        case .receiving(let reception):
            guard now >= reception.deadline else { return reception.deadline }
            abortReception()
            Self.send(error: .messageTimeout, on: reception.channel, to: output)
            return nil
        case .pending(let channel, let due):
            guard now >= due else { return due }
            Self.send(command: .keepalive, on: channel, byte: status(channel), to: output)
            let next = now + limits.keepaliveMilliseconds
            transaction = .pending(channel: channel, nextKeepalive: next)
            return next
        }
    }

    /// The connection is gone: every channel ends (a pending request's reply will be dropped).
    public mutating func close() -> [Event] {
        abortReception()
        transaction = .none
        let closed = channels.keys.sorted().map { Event.channelClosed(channel: $0) }
        channels.removeAll()
        return closed
    }

    // MARK: - Steps

    private mutating func initialize(channel: UInt32, length: Int, payload: UnsafeRawBufferPointer, output: ReplyBuffer) -> [Event] {
        guard length == 8 else {
            Self.send(error: .invalidLength, on: channel, to: output)
            return []
        }
        var events: [Event] = []
        let allocated: UInt32
        if channel == .ctaphidBroadcast {
            // A broadcast INIT never disturbs a transaction on another channel.
            if channels.count >= limits.maxChannels, let reused = leastRecentlyUsedIdleChannel() {
                channels[reused] = nil
                events.append(.channelClosed(channel: reused))
            }
            guard channels.count < limits.maxChannels, let fresh = freshChannelID() else {
                Self.send(error: .other, on: channel, to: output)
                return events
            }
            allocated = fresh
        } else {
            guard channels[channel] != nil else {
                Self.send(error: .invalidChannel, on: channel, to: output)
                return []
            }
            // Resynchronisation: whatever the channel was doing ends.
            if involves(channel) {
                abortReception()
                transaction = .none
            }
            events.append(.channelClosed(channel: channel))
            allocated = channel
        }
        touch(allocated)
        var answer = [UInt8](repeating: 0, count: 17)
        for index in 0..<8 { answer[index] = payload[index] }
        answer[8] = UInt8(truncatingIfNeeded: allocated >> 24)
        answer[9] = UInt8(truncatingIfNeeded: allocated >> 16)
        answer[10] = UInt8(truncatingIfNeeded: allocated >> 8)
        answer[11] = UInt8(truncatingIfNeeded: allocated)
        answer[12] = Self.protocolVersion
        answer[13] = version.major
        answer[14] = version.minor
        answer[15] = version.build
        answer[16] = Self.capabilities
        answer.withUnsafeBytes { Self.send(command: .initialize, on: channel, message: $0, to: output) }
        return events
    }

    private mutating func begin(
        command: CTAPHIDCommand, channel: UInt32, length: Int, payload: UnsafeRawBufferPointer, now: Int64, output: ReplyBuffer
    ) -> [Event] {
        guard length <= limits.maxMessageSize, command != .cbor || length > 0 else {
            Self.send(error: .invalidLength, on: channel, to: output)
            return []
        }
        let message: SecretBytes
        do {
            message = try SecretBytes(zeroed: length)
        } catch {
            Self.send(error: .other, on: channel, to: output)
            return []
        }
        let first = min(length, Self.initialisationPayload)
        message.withUnsafeMutableBytes { bytes in
            Self.copy(UnsafeRawBufferPointer(rebasing: payload[..<first]), into: bytes, at: 0)
        }
        let reception = Reception(
            channel: channel, command: command, message: message, received: first, nextSequence: 0,
            deadline: now + limits.messageTimeoutMilliseconds
        )
        return finishIfWhole(reception, now: now, output: output)
    }

    private mutating func continuation(
        channel: UInt32, sequence: UInt8, report: UnsafeRawBufferPointer, now: Int64, output: ReplyBuffer
    ) -> [Event] {
        // A continuation packet nobody expects is ignored, as CTAP says.
        guard case .receiving(var reception) = transaction, reception.channel == channel else { return [] }
        guard sequence == reception.nextSequence else {
            abortReception()
            Self.send(error: .invalidSequence, on: channel, to: output)
            return []
        }
        let taken = min(reception.message.count - reception.received, Self.continuationPayload)
        let offset = reception.received
        reception.message.withUnsafeMutableBytes { bytes in
            Self.copy(UnsafeRawBufferPointer(rebasing: report[5..<(5 + taken)]), into: bytes, at: offset)
        }
        reception.received += taken
        reception.nextSequence &+= 1
        return finishIfWhole(reception, now: now, output: output)
    }

    /// Copies `source` into `target` from `offset` (the caller checked the room).
    private static func copy(_ source: UnsafeRawBufferPointer, into target: UnsafeMutableRawBufferPointer, at offset: Int) {
        guard let from = source.baseAddress, let to = target.baseAddress, !source.isEmpty,
              offset >= 0, offset + source.count <= target.count
        else { return }
        (to + offset).copyMemory(from: from, byteCount: source.count)
    }

    private mutating func finishIfWhole(_ reception: Reception, now: Int64, output: ReplyBuffer) -> [Event] {
        guard reception.received == reception.message.count else {
            transaction = .receiving(reception)
            return []
        }
        switch reception.command {
        case .cbor:
            transaction = .pending(channel: reception.channel, nextKeepalive: now + limits.keepaliveMilliseconds)
            return [.cbor(channel: reception.channel, request: reception.message)]
        default:
            transaction = .none
            reception.message.withUnsafeBytes { Self.send(command: .ping, on: reception.channel, message: $0, to: output) }
            reception.message.wipe()
            return []
        }
    }

    private mutating func abortReception() {
        if case .receiving(let reception) = transaction {
            reception.message.wipe()
            transaction = .none
        }
    }

    private func involves(_ channel: UInt32) -> Bool {
        switch transaction {
        case .none: false
        case .receiving(let reception): reception.channel == channel
        case .pending(let pending, _): pending == channel
        }
    }

    private mutating func touch(_ channel: UInt32) {
        uses &+= 1
        channels[channel] = uses
    }

    private func leastRecentlyUsedIdleChannel() -> UInt32? {
        channels.filter { !involves($0.key) }.min { $0.value < $1.value }?.key
    }

    private func freshChannelID() -> UInt32? {
        for _ in 0..<16 {
            let candidate = makeChannelID()
            if candidate != 0 && candidate != .ctaphidBroadcast && channels[candidate] == nil { return candidate }
        }
        return nil
    }

    // MARK: - Writing reports

    /// Frames `message` as `command` on `channel`: one initialisation packet and as many
    /// continuation packets as it needs, each `CTAPHID.reportSize` bytes, zero-padded.
    static func send(command: CTAPHIDCommand, on channel: UInt32, message: UnsafeRawBufferPointer, to output: ReplyBuffer) {
        output.write { bytes in
            var offset = 0
            var sequence: UInt8 = 0
            repeat {
                let isFirst = offset == 0
                let room = isFirst ? initialisationPayload : continuationPayload
                let taken = min(room, message.count - offset)
                bytes.append(byteCount: CTAPHID.reportSize) { report in
                    report.storeBytes(of: UInt32(channel).bigEndian, toByteOffset: 0, as: UInt32.self)
                    var header = 5
                    if isFirst {
                        report.storeBytes(of: command.rawValue | 0x80, toByteOffset: 4, as: UInt8.self)
                        report.storeBytes(of: UInt8(truncatingIfNeeded: message.count >> 8), toByteOffset: 5, as: UInt8.self)
                        report.storeBytes(of: UInt8(truncatingIfNeeded: message.count), toByteOffset: 6, as: UInt8.self)
                        header = 7
                    } else {
                        report.storeBytes(of: sequence, toByteOffset: 4, as: UInt8.self)
                        sequence &+= 1
                    }
                    if taken > 0, let source = message.baseAddress {
                        (report + header).copyMemory(from: source + offset, byteCount: taken)
                    }
                    // The rest of the report is zero already (`ReplyBytes` keeps its free space zeroed).
                }
                offset += taken
            } while offset < message.count
        }
    }

    static func send(error: CTAPHIDError, on channel: UInt32, to output: ReplyBuffer) {
        send(command: .error, on: channel, byte: error.rawValue, to: output)
    }

    static func send(command: CTAPHIDCommand, on channel: UInt32, byte: UInt8, to output: ReplyBuffer) {
        withUnsafeBytes(of: byte) { send(command: command, on: channel, message: $0, to: output) }
    }
}
