import Dispatch
import Foundation
import PinVaultCrypto
@testable import PinVaultClient
import PinVaultProtocol
import PinVaultTestKit
import XCTest

/// Cancelling a Task affects its own call only: a queued call is skipped without being
/// sent and leaves the connection (and the call in flight) alone, and an answer that
/// arrived before the cancellation is the call's result.
final class CancellationTests: XCTestCase {
    private static let valid = #"{"parameters":{"valid":true,"violations":[]}}"#

    func testCancellingAQueuedCall_skipsIt_andLeavesTheCallInFlightAndTheConnectionAlone() async throws {
        // Every call is answered after a while, as a queued KDF would be.
        let server = try ScriptedVarlinkServer { _ in
            usleep(1_500_000)
            return ScriptedVarlinkServer.reply(Self.valid)
        }
        defer { server.stop() }
        let client = try PinVaultClient(socketPath: server.socketPath, timeout: .seconds(30))
        let inFlight = Task { try await client.checkPin(PIN("258046")) }
        XCTAssertTrue(server.waitFor { server.received.count == 1 }, "the first call never arrived")
        let queuedPin = PIN("370591")
        let queued = Task { await thrownError { try await client.checkPin(queuedPin) } }
        // Let the second call reach the client's queue, behind the first.
        try await Task.sleep(for: .milliseconds(300))
        queued.cancel()

        let answered = try await inFlight.value
        XCTAssertEqual(answered, PinCheck(valid: true, violations: []), "the call in flight was not disturbed")
        let error = await queued.value
        XCTAssertEqual(error, .cancelled)
        XCTAssertTrue(queuedPin.isConsumed, "the skipped call's PIN is wiped")
        XCTAssertEqual(server.received.count, 1, "the cancelled call was never sent")
        XCTAssertFalse(server.clientHungUp)

        let later = try await client.checkPin(PIN("258046"))
        XCTAssertTrue(later.valid, "the connection goes on")
        XCTAssertEqual(server.received.count, 2)
    }

    func testAnAnswerReceivedBeforeTheCancellation_isTheResult_andTheConnectionCloses() async throws {
        let server = try ScriptedVarlinkServer { _ in ScriptedVarlinkServer.reply(#"{"parameters":{}}"#) }
        defer { server.stop() }
        let client = try PinVaultClient(socketPath: server.socketPath, timeout: .seconds(30))
        let decoding = Flag()
        let cancelled = DispatchSemaphore(value: 0)
        let connection = client.connection
        let task = Task {
            let frame = ReplyBuffer(capacity: 256)
            VarlinkCall.append(method: VaultMethod.authenticate.qualifiedName, to: frame) { _ in }
            return await thrownError {
                try await connection.exchange(frame) { _ throws(PinVaultError) in
                    // The reply is here; the Task is cancelled before it is decoded.
                    decoding.set()
                    cancelled.wait()
                    throw .wrongPin(remainingAttempts: 3)
                }
            }
        }
        while !decoding.isSet { try await Task.sleep(for: .milliseconds(5)) }
        task.cancel()
        cancelled.signal()
        let error = await task.value
        XCTAssertEqual(error, .wrongPin(remainingAttempts: 3), "the daemon's answer, not .cancelled")
        XCTAssertTrue(server.waitFor { server.clientHungUp }, "the call in flight was cancelled: the socket is shut down")
        await XCTAssertThrowsPinVaultError(.connectionLost) { try await client.getPolicy() }
    }
}

/// A flag set on one thread and polled from a test.
private final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    func set() { lock.withLock { value = true } }

    var isSet: Bool { lock.withLock { value } }
}
