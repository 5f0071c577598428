import PinVaultClient
import PinVaultTestKit
import XCTest

/// PINs the client refuses before sending, naming the parameter: an empty PIN (never
/// right, and it could only cost an attempt) except for `checkPin`, and bytes that are
/// not UTF-8 (they would make a frame that is not JSON, and the daemon would drop the
/// connection). Nothing is sent, the PINs are wiped, and the connection stays usable.
final class PinValidationTests: XCTestCase {
    private let challenge: [UInt8] = [1, 2, 3]
    private static let notUTF8: [UInt8] = [0x32, 0x35, 0xFF, 0x38]

    /// A fake daemon answering every call with a valid CheckPin reply.
    private func server() throws -> ScriptedVarlinkServer {
        try ScriptedVarlinkServer { _ in ScriptedVarlinkServer.reply(#"{"parameters":{"valid":false,"violations":["empty"]}}"#) }
    }

    func testAnEmptyPin_isInvalidParameter_forEveryMethodThatChecksAPin_andNothingIsSent() async throws {
        let server = try server()
        defer { server.stop() }
        let client = try PinVaultClient(socketPath: server.socketPath)
        let empty = PIN("")
        await XCTAssertThrowsPinVaultError(.invalidParameter("pin")) {
            try await client.authenticate(user: "alice", pin: empty, challenge: self.challenge)
        }
        XCTAssertTrue(empty.isConsumed)
        await XCTAssertThrowsPinVaultError(.invalidParameter("pin")) { try await client.register(user: "alice", pin: PIN("")) }
        await XCTAssertThrowsPinVaultError(.invalidParameter("pin")) { try await client.beginUnregister(user: "alice", pin: PIN("")) }
        await XCTAssertThrowsPinVaultError(.invalidParameter("pin")) { try await client.wipe(user: "alice", pin: PIN("")) }
        let newPin = PIN("258046")
        await XCTAssertThrowsPinVaultError(.invalidParameter("currentPin")) {
            try await client.changePin(user: "alice", currentPin: PIN(""), newPin: newPin)
        }
        XCTAssertTrue(newPin.isConsumed, "the other PIN of a refused call is wiped too")
        await XCTAssertThrowsPinVaultError(.invalidParameter("newPin")) {
            try await client.changePin(user: "alice", currentPin: PIN("258046"), newPin: PIN(""))
        }
        XCTAssertEqual(server.received.count, 0)
    }

    func testAnEmptyPin_isStillSentByCheckPin_forThePolicyToAnswer() async throws {
        let server = try server()
        defer { server.stop() }
        let client = try PinVaultClient(socketPath: server.socketPath)
        let check = try await client.checkPin(PIN(""))
        XCTAssertEqual(check, PinCheck(valid: false, violations: [.empty]))
        XCTAssertEqual(server.received.map { String(decoding: $0, as: UTF8.self) },
                       [#"{"method":"io.pinvault.Vault.CheckPin","parameters":{"pin":""}}"#])
    }

    func testAPinThatIsNotUTF8_isInvalidParameter_nothingIsSent_andTheConnectionGoesOn() async throws {
        let server = try server()
        defer { server.stop() }
        let client = try PinVaultClient(socketPath: server.socketPath)
        let pin = PIN(copying: Self.notUTF8)
        await XCTAssertThrowsPinVaultError(.invalidParameter("pin")) { try await client.checkPin(pin) }
        XCTAssertTrue(pin.isConsumed)
        await XCTAssertThrowsPinVaultError(.invalidParameter("pin")) {
            try await client.authenticate(user: "alice", pin: PIN(copying: Self.notUTF8), challenge: self.challenge)
        }
        await XCTAssertThrowsPinVaultError(.invalidParameter("newPin")) {
            try await client.changePin(user: "alice", currentPin: PIN("258046"), newPin: PIN(copying: Self.notUTF8))
        }
        // An overlong encoding and a UTF-16 surrogate are not UTF-8 either.
        for bytes: [UInt8] in [[0xC0, 0xB1], [0xED, 0xA0, 0x80]] {
            await XCTAssertThrowsPinVaultError(.invalidParameter("pin")) { try await client.checkPin(PIN(copying: bytes)) }
        }
        XCTAssertEqual(server.received.count, 0)
        let check = try await client.checkPin(PIN("2580é"))
        XCTAssertFalse(check.valid, "the connection is still usable")
        XCTAssertEqual(server.received.count, 1)
    }
}
