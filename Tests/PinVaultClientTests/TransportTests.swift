import Foundation
import Glibc
import PinVaultClient
import PinVaultTestKit
import XCTest

/// What goes wrong on the way to the daemon: no socket, a peer that hangs up, never
/// answers or answers garbage, a cancelled Task — against a scripted fake server.
final class TransportTests: XCTestCase {
    private let challenge: [UInt8] = [1, 2, 3]

    func testNoSocket_isDaemonUnavailable_withENOENT() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/missing.sock"
        XCTAssertThrowsError(try PinVaultClient(socketPath: path)) { error in
            XCTAssertEqual(error as? PinVaultError, .daemonUnavailable(socketPath: path, errno: ENOENT))
        }
    }

    func testASocketNobodyListensOn_isDaemonUnavailable_withECONNREFUSED() throws {
        let directory = try TemporaryDirectory()
        let stale = directory.path + "/stale.sock"
        try StaleSocketFile.make(at: stale)
        XCTAssertThrowsError(try PinVaultClient(socketPath: stale)) { error in
            XCTAssertEqual(error as? PinVaultError, .daemonUnavailable(socketPath: stale, errno: ECONNREFUSED))
        }
    }

    func testAServerThatHangsUpMidCall_isConnectionLost_andSoIsTheNextCall() async throws {
        let server = try ScriptedVarlinkServer { _ in .close }
        defer { server.stop() }
        let client = try PinVaultClient(socketPath: server.socketPath)
        let pin = PIN("258046")
        await XCTAssertThrowsPinVaultError(.connectionLost) {
            try await client.authenticate(user: "alice", pin: pin, challenge: challenge)
        }
        XCTAssertTrue(pin.isConsumed)
        await XCTAssertThrowsPinVaultError(.connectionLost) { try await client.getPolicy() }
    }

    func testAServerThatNeverAnswers_isTimedOut_andTheConnectionIsClosed() async throws {
        let server = try ScriptedVarlinkServer { _ in .silence }
        defer { server.stop() }
        let client = try PinVaultClient(socketPath: server.socketPath, timeout: .milliseconds(200))
        let start = ContinuousClock.now
        await XCTAssertThrowsPinVaultError(.timedOut) { try await client.getPolicy() }
        // Not before the timeout: a lower bound, which no load on the machine can break
        // (how much later is the machine's business, not the client's).
        let elapsed = ContinuousClock.now - start
        XCTAssertGreaterThanOrEqual(elapsed, .milliseconds(200), "the call gave up before its timeout: \(elapsed)")
        XCTAssertTrue(server.waitFor { server.clientHungUp }, "the client did not close its connection")
        await XCTAssertThrowsPinVaultError(.connectionLost) { try await client.getPolicy() }
    }

    func testCancellingTheTask_shutsTheSocketDown_andIsCancelled() async throws {
        let server = try ScriptedVarlinkServer { _ in .silence }
        defer { server.stop() }
        let timeout = Duration.seconds(30)
        let client = try PinVaultClient(socketPath: server.socketPath, timeout: timeout)
        let pin = PIN("258046")
        let challenge = self.challenge
        let task = Task { await thrownError { try await client.authenticate(user: "alice", pin: pin, challenge: challenge) } }
        XCTAssertTrue(server.waitFor { server.received.count == 1 }, "the call never arrived")
        let start = ContinuousClock.now
        task.cancel()
        let error = await task.value
        XCTAssertEqual(error, .cancelled)
        // The cancellation ended the call, not the timeout it would otherwise wait for.
        XCTAssertLessThan(ContinuousClock.now - start, timeout, "the call ended by its timeout, not by the cancellation")
        XCTAssertTrue(server.waitFor { server.clientHungUp }, "the daemon side saw no shutdown")
        XCTAssertTrue(pin.isConsumed)
        await XCTAssertThrowsPinVaultError(.connectionLost) { try await client.getPolicy() }
    }

    func testACallFromAnAlreadyCancelledTask_isCancelled_andSendsNothing() async throws {
        let server = try ScriptedVarlinkServer { _ in ScriptedVarlinkServer.reply(#"{"parameters":{"valid":true,"violations":[]}}"#) }
        defer { server.stop() }
        let client = try PinVaultClient(socketPath: server.socketPath)
        let pin = PIN("258046")
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await thrownError { try await client.checkPin(pin) }
        }
        let error = await task.value
        XCTAssertEqual(error, PinVaultError.cancelled)
        XCTAssertTrue(pin.isConsumed)
        XCTAssertEqual(server.received.count, 0)
    }

    func testClose_endsTheConnection_andLaterCallsAreConnectionLost() async throws {
        let server = try ScriptedVarlinkServer { _ in .silence }
        defer { server.stop() }
        let client = try PinVaultClient(socketPath: server.socketPath)
        client.close()
        XCTAssertTrue(server.waitFor { server.clientHungUp })
        await XCTAssertThrowsPinVaultError(.connectionLost) { try await client.getPolicy() }
    }

    func testAReplyThatIsNotJSON_isProtocolError_andClosesTheConnection() async throws {
        let server = try ScriptedVarlinkServer { _ in .send(Array("this is not json".utf8) + [0]) }
        defer { server.stop() }
        let client = try PinVaultClient(socketPath: server.socketPath)
        let error = await thrownError { try await client.getPolicy() }
        guard error?.code == .protocolError else { return XCTFail("got \(String(describing: error))") }
        await XCTAssertThrowsPinVaultError(.connectionLost) { try await client.getPolicy() }
    }

    func testAReplyMissingAParameter_isProtocolError_namingTheParameter() async throws {
        let server = try ScriptedVarlinkServer { _ in ScriptedVarlinkServer.reply(#"{"parameters":{"valid":true}}"#) }
        defer { server.stop() }
        let client = try PinVaultClient(socketPath: server.socketPath)
        let error = await thrownError { try await client.checkPin(PIN("258046")) }
        guard error?.code == .protocolError, let reason = error?.reason else { return XCTFail("got \(String(describing: error))") }
        XCTAssertTrue(reason.contains("violations"), reason)
    }

    func testTwoRepliesToOneCall_isProtocolError() async throws {
        let reply = Array(#"{"parameters":{"deletedCount":0}}"#.utf8) + [0]
        let server = try ScriptedVarlinkServer { _ in .send(reply + reply) }
        defer { server.stop() }
        let client = try PinVaultClient(socketPath: server.socketPath)
        let error = await thrownError { try await client.resetEverything() }
        guard error?.code == .protocolError else { return XCTFail("got \(String(describing: error))") }
    }

    func testAReplyLongerThanSixteenMebibytes_isProtocolError() async throws {
        let flood = [UInt8](repeating: UInt8(ascii: " "), count: (16 << 20) + 1)
        let server = try ScriptedVarlinkServer { _ in .send(flood) }
        defer { server.stop() }
        let client = try PinVaultClient(socketPath: server.socketPath)
        let error = await thrownError { try await client.getPolicy() }
        guard error?.code == .protocolError, let reason = error?.reason else { return XCTFail("got \(String(describing: error))") }
        XCTAssertTrue(reason.contains("larger"), reason)
    }

    func testALongListReply_growsTheInputBuffer_andDecodesEveryCredential() async throws {
        let publicKey = Data(repeating: 7, count: 32).base64EncodedString()
        let credentials = (0..<2000).map { index in
            #"{"user":"user-\#(index)","keyId":"\#(String(format: "%032x", index))","publicKey":"\#(publicKey)","ownerUid":1000,"# +
                #""createdAt":"2026-01-31T12:00:00Z","failedAttempts":0,"remainingAttempts":10,"state":"active"}"#
        }
        let reply = #"{"parameters":{"credentials":["# + credentials.joined(separator: ",") + "]}}"
        XCTAssertGreaterThan(reply.utf8.count, 256 * 1024)
        let server = try ScriptedVarlinkServer { _ in ScriptedVarlinkServer.reply(reply) }
        defer { server.stop() }
        let client = try PinVaultClient(socketPath: server.socketPath)
        let listed = try await client.list()
        XCTAssertEqual(listed.count, 2000)
        XCTAssertEqual(listed.last?.user, "user-1999")
        XCTAssertEqual(listed.first?.createdAt.date, Date(timeIntervalSince1970: 1_769_860_800))
        XCTAssertEqual(listed.first?.publicKey, [UInt8](repeating: 7, count: 32))
        // The connection goes on working after the buffer shrank back.
        let count = try await client.list().count
        XCTAssertEqual(count, 2000)
    }

    func testAPin_isSentJSONEscapedStraightFromSecretMemory() async throws {
        let server = try ScriptedVarlinkServer { _ in ScriptedVarlinkServer.reply(#"{"parameters":{"valid":false,"violations":["notDigits"]}}"#) }
        defer { server.stop() }
        let client = try PinVaultClient(socketPath: server.socketPath)
        let check = try await client.checkPin(PIN("1\"2\\3\n4é"))
        XCTAssertEqual(check, PinCheck(valid: false, violations: [.notDigits]))
        let frame = try XCTUnwrap(server.received.first)
        let call = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(frame)) as? [String: Any])
        XCTAssertEqual(call["method"] as? String, "io.pinvault.Vault.CheckPin")
        XCTAssertEqual((call["parameters"] as? [String: Any])?["pin"] as? String, "1\"2\\3\n4é")
        XCTAssertNil(call["oneway"])
    }

    func testResetEverything_sendsTheConfirmationItself() async throws {
        let server = try ScriptedVarlinkServer { _ in ScriptedVarlinkServer.reply(#"{"parameters":{"deletedCount":3}}"#) }
        defer { server.stop() }
        let client = try PinVaultClient(socketPath: server.socketPath)
        let deleted = try await client.resetEverything()
        XCTAssertEqual(deleted, 3)
        let frame = try XCTUnwrap(server.received.first)
        XCTAssertEqual(String(decoding: frame, as: UTF8.self), #"{"method":"io.pinvault.Vault.Reset","parameters":{"confirm":"RESET"}}"#)
    }
}
