import PinVaultCTAPHID
import PinVaultCrypto
import XCTest

final class CTAPHIDDeviceTests: XCTestCase {
    private let broadcast: UInt32 = 0xFFFF_FFFF

    func testInitOnBroadcastAllocatesAChannelAndEchoesTheNonce() {
        var device = ScriptedDevice()
        let answer = device.send(message: [9, 8, 7, 6, 5, 4, 3, 2], command: 0x86, on: broadcast)
        guard let (channel, command, payload) = ScriptedDevice.message(answer.reports) else { return XCTFail("no answer") }
        XCTAssertEqual(channel, broadcast)
        XCTAssertEqual(command, 0x86)
        XCTAssertEqual(payload, [9, 8, 7, 6, 5, 4, 3, 2, 0x01, 0, 0, 0, 2, 1, 2, 3, 0x0D])
        XCTAssertEqual(device.device.channelCount, 1)
        // Each INIT gets a channel of its own.
        XCTAssertNotEqual(device.initialize(), device.initialize())
    }

    func testInitWithAnotherLengthIsInvalidLength() {
        var device = ScriptedDevice()
        let answer = device.send(message: [1, 2, 3], command: 0x86, on: broadcast)
        XCTAssertEqual(ScriptedDevice.error(answer.reports), 0x03)
        XCTAssertEqual(device.device.channelCount, 0)
    }

    func testPingEchoesAMessageOfManyReports() {
        var device = ScriptedDevice()
        let channel = device.initialize()
        let message = (0..<300).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let answer = device.send(message: message, command: 0x81, on: channel)
        XCTAssertEqual(answer.reports.count, 6)  // 57 + 5 × 59 ≥ 300
        guard let (echoChannel, command, payload) = ScriptedDevice.message(answer.reports) else { return XCTFail("no echo") }
        XCTAssertEqual(echoChannel, channel)
        XCTAssertEqual(command, 0x81)
        XCTAssertEqual(payload, message)
        XCTAssertFalse(device.device.isBusy)
    }

    func testCBORRequestReassembledAndTheReplyFramed() {
        var device = ScriptedDevice()
        let channel = device.initialize()
        let request = [0x04] + (0..<200).map { UInt8(truncatingIfNeeded: $0) }
        let answer = device.send(message: request, command: 0x90, on: channel)
        XCTAssertTrue(answer.reports.isEmpty)
        guard answer.events.count == 1, case .cbor(let on, let bytes) = answer.events[0] else { return XCTFail("\(answer.events)") }
        XCTAssertEqual(on, channel)
        XCTAssertEqual(bytes.withUnsafeBytes { Array($0) }, request)
        XCTAssertTrue(device.device.hasPendingRequest)
        let response = [0x00] + (0..<100).map { UInt8(truncatingIfNeeded: 255 - $0) }
        let reports = device.reply(response, on: channel)
        guard let (replyChannel, command, payload) = ScriptedDevice.message(reports) else { return XCTFail("no reply") }
        XCTAssertEqual(replyChannel, channel)
        XCTAssertEqual(command, 0x90)
        XCTAssertEqual(payload, response)
        XCTAssertFalse(device.device.hasPendingRequest)
    }

    func testTheLargestMessageFitsAndOneByteMoreIsInvalidLength() {
        var device = ScriptedDevice()
        let channel = device.initialize()
        let largest = [UInt8](repeating: 0x5A, count: 7609)
        let answer = device.send(message: largest, command: 0x81, on: channel)
        XCTAssertEqual(answer.reports.count, 129)
        XCTAssertEqual(ScriptedDevice.message(answer.reports)?.payload, largest)
        let oversize = device.send(ScriptedDevice.frame([1, 2, 3], command: 0x81, channel: channel, declaredLength: 7610)[0])
        XCTAssertEqual(ScriptedDevice.error(oversize.reports), 0x03)
        let emptyCBOR = device.send(ScriptedDevice.frame([], command: 0x90, channel: channel)[0])
        XCTAssertEqual(ScriptedDevice.error(emptyCBOR.reports), 0x03)
        XCTAssertFalse(device.device.isBusy)
    }

    func testAContinuationOutOfSequenceIsInvalidSeqAndEndsTheMessage() {
        var device = ScriptedDevice()
        let channel = device.initialize()
        var reports = ScriptedDevice.frame([UInt8](repeating: 1, count: 200), command: 0x81, channel: channel)
        XCTAssertTrue(device.send(reports[0]).reports.isEmpty)
        reports[1][4] = 1  // sequence 1 where 0 is due
        let answer = device.send(reports[1])
        XCTAssertEqual(ScriptedDevice.error(answer.reports), 0x04)
        XCTAssertFalse(device.device.isBusy)
    }

    func testAContinuationNobodyExpectsIsIgnored() {
        var device = ScriptedDevice()
        let channel = device.initialize()
        let stray = ScriptedDevice.header(channel) + [0] + [UInt8](repeating: 0, count: 59)
        let answer = device.send(stray)
        XCTAssertTrue(answer.reports.isEmpty)
        XCTAssertTrue(answer.events.isEmpty)
    }

    func testANewMessageOnTheSameChannelBeforeTheLastIsWholeIsInvalidSeq() {
        var device = ScriptedDevice()
        let channel = device.initialize()
        _ = device.send(ScriptedDevice.frame([UInt8](repeating: 1, count: 100), command: 0x81, channel: channel)[0])
        let answer = device.send(ScriptedDevice.frame([1], command: 0x81, channel: channel)[0])
        XCTAssertEqual(ScriptedDevice.error(answer.reports), 0x04)
        XCTAssertFalse(device.device.isBusy)
    }

    func testAnotherChannelIsBusyWhileAMessageIsReceivedOrPending() {
        var device = ScriptedDevice()
        let first = device.initialize()
        let second = device.initialize()
        _ = device.send(ScriptedDevice.frame([UInt8](repeating: 1, count: 100), command: 0x90, channel: first)[0])
        XCTAssertEqual(ScriptedDevice.error(device.send(message: [1], command: 0x81, on: second).reports), 0x06)
        // Still receiving the first: its last packet completes it.
        let rest = device.send(ScriptedDevice.frame([UInt8](repeating: 1, count: 100), command: 0x90, channel: first)[1])
        XCTAssertEqual(rest.events.count, 1)
        XCTAssertEqual(ScriptedDevice.error(device.send(message: [4], command: 0x90, on: second).reports), 0x06)
        // The same channel too: one transaction at a time.
        XCTAssertEqual(ScriptedDevice.error(device.send(message: [4], command: 0x90, on: first).reports), 0x06)
        // A broadcast INIT is still answered.
        XCTAssertNotEqual(device.initialize(), 0)
        XCTAssertTrue(device.device.hasPendingRequest)
    }

    func testCancelReachesOnlyThePendingChannel() {
        var device = ScriptedDevice()
        let first = device.initialize()
        let second = device.initialize()
        XCTAssertTrue(device.send(message: [1], command: 0x91, on: first).events.isEmpty, "nothing pending: ignored")
        _ = device.send(message: [4], command: 0x90, on: first)
        let other = device.send(message: [], command: 0x91, on: second)
        XCTAssertTrue(other.events.isEmpty && other.reports.isEmpty)
        let cancel = device.send(message: [], command: 0x91, on: first)
        XCTAssertTrue(cancel.reports.isEmpty, "CANCEL itself is not answered")
        guard cancel.events.count == 1, case .cancel(let channel) = cancel.events[0] else { return XCTFail("\(cancel.events)") }
        XCTAssertEqual(channel, first)
        guard let (_, command, payload) = ScriptedDevice.message(device.reply([0x2D], on: first)) else { return XCTFail("no reply") }
        XCTAssertEqual(command, 0x90)
        XCTAssertEqual(payload, [0x2D])
    }

    func testKeepalivesWhileARequestIsPending() {
        var device = ScriptedDevice()
        let channel = device.initialize()
        XCTAssertNil(device.tick().next, "no transaction, no tick")
        _ = device.send(message: [4], command: 0x90, on: channel)
        var tick = device.tick()
        XCTAssertTrue(tick.reports.isEmpty, "not yet due")
        XCTAssertEqual(tick.next, device.now + 100)
        device.now += 100
        tick = device.tick(status: 2)
        guard let (on, command, payload) = ScriptedDevice.message(tick.reports) else { return XCTFail("no KEEPALIVE") }
        XCTAssertEqual(on, channel)
        XCTAssertEqual(command, 0xBB)
        XCTAssertEqual(payload, [2])
        XCTAssertEqual(tick.next, device.now + 100)
        device.now += 250
        XCTAssertEqual(device.tick().reports.count, 1)
        _ = device.reply([0], on: channel)
        device.now += 1000
        XCTAssertTrue(device.tick().reports.isEmpty, "no KEEPALIVE after the reply")
    }

    func testLateContinuationPacketsEndInMessageTimeout() {
        var device = ScriptedDevice()
        let channel = device.initialize()
        let reports = ScriptedDevice.frame([UInt8](repeating: 1, count: 100), command: 0x90, channel: channel)
        _ = device.send(reports[0])
        device.now += 2999
        XCTAssertTrue(device.tick().reports.isEmpty)
        device.now += 1
        XCTAssertEqual(ScriptedDevice.error(device.tick().reports), 0x05)
        XCTAssertFalse(device.device.isBusy)
        let late = device.send(reports[1])
        XCTAssertTrue(late.reports.isEmpty && late.events.isEmpty, "the late packet is a stray one now")
    }

    func testChannelsNotAllocatedHereAreInvalidChannel() {
        var device = ScriptedDevice()
        let channel = device.initialize()
        XCTAssertEqual(ScriptedDevice.error(device.send(message: [1], command: 0x81, on: broadcast).reports), 0x0B)
        XCTAssertEqual(ScriptedDevice.error(device.send(message: [1], command: 0x81, on: channel &+ 1000).reports), 0x0B)
        XCTAssertEqual(ScriptedDevice.error(device.send(message: [1], command: 0x81, on: 0).reports), 0x0B)
        XCTAssertEqual(ScriptedDevice.error(device.send(message: [1, 2, 3, 4, 5, 6, 7, 8], command: 0x86, on: 0x1234).reports), 0x0B)
        let error = device.send(message: [1], command: 0x81, on: 0x1234).reports
        XCTAssertEqual(ScriptedDevice.message(error)?.channel, 0x1234, "the error goes to the channel that asked")
    }

    func testCommandsNotImplementedAreInvalidCmd() {
        var device = ScriptedDevice()
        let channel = device.initialize()
        for command: UInt8 in [0x83, 0x84, 0xBB, 0xBF, 0x80, 0xC0, 0xFF] {
            XCTAssertEqual(ScriptedDevice.error(device.send(message: [], command: command, on: channel).reports), 0x01, "\(command)")
        }
    }

    func testWinkIsAnsweredAndReported() {
        var device = ScriptedDevice()
        let channel = device.initialize()
        let answer = device.send(message: [], command: 0x88, on: channel)
        XCTAssertEqual(ScriptedDevice.message(answer.reports)?.command, 0x88)
        guard answer.events.count == 1, case .wink(let on) = answer.events[0] else { return XCTFail("\(answer.events)") }
        XCTAssertEqual(on, channel)
        XCTAssertEqual(ScriptedDevice.error(device.send(message: [1], command: 0x88, on: channel).reports), 0x03)
    }

    func testChannelExhaustionReusesTheLeastRecentlyUsedChannel() {
        var device = ScriptedDevice(limits: CTAPHIDLimits(maxChannels: 4))
        let kept = device.initialize()
        _ = device.send(message: [4], command: 0x90, on: kept)  // busy: never the one reused
        var closed = 0
        for _ in 0..<1000 {
            let answer = device.send(message: [1, 2, 3, 4, 5, 6, 7, 8], command: 0x86, on: broadcast)
            XCTAssertNotNil(ScriptedDevice.message(answer.reports))
            for case .channelClosed(let channel) in answer.events {
                XCTAssertNotEqual(channel, kept)
                closed += 1
            }
            XCTAssertLessThanOrEqual(device.device.channelCount, 4)
        }
        XCTAssertEqual(closed, 1000 - 3)
        XCTAssertTrue(device.device.hasPendingRequest)
        XCTAssertEqual(ScriptedDevice.message(device.reply([0], on: kept))?.command, 0x90)
    }

    func testReInitEndsTheChannelsStateAndDropsItsPendingReply() {
        var device = ScriptedDevice()
        let channel = device.initialize()
        _ = device.send(message: [4], command: 0x90, on: channel)
        let answer = device.send(message: [1, 1, 1, 1, 1, 1, 1, 1], command: 0x86, on: channel)
        guard let (on, _, payload) = ScriptedDevice.message(answer.reports) else { return XCTFail("no INIT answer") }
        XCTAssertEqual(on, channel)
        XCTAssertEqual(ScriptedDevice.channel(Array(payload[8..<12])), channel, "a re-INIT keeps its channel id")
        guard answer.events.count == 1, case .channelClosed(let closed) = answer.events[0] else { return XCTFail("\(answer.events)") }
        XCTAssertEqual(closed, channel)
        XCTAssertFalse(device.device.isBusy)
        XCTAssertTrue(device.reply([0], on: channel).isEmpty, "the old request's reply reaches nobody")
    }

    func testAReplyTooLargeOrEmptyIsAnsweredOther() {
        var device = ScriptedDevice(limits: CTAPHIDLimits(maxMessageSize: 100))
        let channel = device.initialize()
        _ = device.send(message: [4], command: 0x90, on: channel)
        XCTAssertEqual(ScriptedDevice.message(device.reply([UInt8](repeating: 0, count: 101), on: channel))?.payload, [0x7F])
        _ = device.send(message: [4], command: 0x90, on: channel)
        XCTAssertEqual(ScriptedDevice.message(device.reply([], on: channel))?.payload, [0x7F])
    }

    func testCloseEndsEveryChannel() {
        var device = ScriptedDevice()
        let channels = Set([device.initialize(), device.initialize(), device.initialize()])
        _ = device.send(message: [4], command: 0x90, on: channels.first ?? 0)
        let events = device.device.close()
        XCTAssertEqual(Set(events.compactMap { if case .channelClosed(let c) = $0 { c } else { nil } }), channels)
        XCTAssertEqual(device.device.channelCount, 0)
        XCTAssertFalse(device.device.isBusy)
    }
}
