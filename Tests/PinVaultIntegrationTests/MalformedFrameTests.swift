import Foundation
import PinVaultTestKit
import XCTest

/// Framing (io.pinvault.Vault.varlink, config/pinvaultd.toml `[server]`): a frame that is not a JSON object, or has no NUL within
/// `server.max_message_bytes`, closes that connection only; pipelined calls are
/// answered in order; a oneway call gets no reply but takes effect.
final class MalformedFrameTests: DaemonTestCase {
    override func setUpWithError() throws {
        try startDaemon(["server": ["max_message_bytes": "1024"]])
    }

    /// Sends `frame` on a fresh connection and expects the daemon to close it, while
    /// `client`, opened before, goes on being answered.
    private func assertClosesOnlyItsConnection(_ frame: [UInt8], _ what: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertSuccess(try client.call("org.varlink.service.GetInfo"), file: file, line: line)
        let offender = try daemon.connect()
        try offender.send(raw: frame)
        XCTAssertTrue(offender.isClosedByPeer(timeout: 30), "\(what): connection stayed open", file: file, line: line)
        XCTAssertSuccess(try client.call("org.varlink.service.GetInfo"), file: file, line: line)
        XCTAssertSuccess(try daemon.connect().call("org.varlink.service.GetInfo"), file: file, line: line)
    }

    func testAFrameThatIsNotJSON_closesOnlyItsConnection() throws {
        try assertClosesOnlyItsConnection(Array("hello, daemon\0".utf8), "not JSON")
    }

    func testAJSONArray_closesOnlyItsConnection() throws {
        try assertClosesOnlyItsConnection(Array("[\"org.varlink.service.GetInfo\"]\0".utf8), "array")
    }

    func testAnObjectWithoutMethod_closesOnlyItsConnection() throws {
        try assertClosesOnlyItsConnection(Array("{\"parameters\":{}}\0".utf8), "no method")
    }

    func testNoNulWithinMaxMessageBytes_closesOnlyItsConnection() throws {
        let start = Array("{\"method\":\"org.varlink.service.GetInfo\",\"padding\":\"".utf8)
        try assertClosesOnlyItsConnection(start + [UInt8](repeating: UInt8(ascii: "a"), count: 1100), "no NUL")
    }

    func testAFrameJustUnderMaxMessageBytes_isAnswered() throws {
        let start = Array("{\"method\":\"org.varlink.service.GetInfo\",\"padding\":\"".utf8)
        let end = Array("\"}\0".utf8)
        let frame = start + [UInt8](repeating: UInt8(ascii: "a"), count: 1024 - start.count - end.count) + end
        XCTAssertEqual(frame.count, 1024)
        try client.send(raw: frame)
        XCTAssertSuccess(try client.receive())
    }

    func testInvalidUTF8_closesOnlyItsConnection() throws {
        let frame = Array("{\"method\":\"org.varlink.service.GetInfo\",\"x\":\"".utf8) + [0xC3, 0x28, 0xFF] + Array("\"}\0".utf8)
        try assertClosesOnlyItsConnection(frame, "invalid UTF-8")
    }

    func testDeeplyNestedJSON_closesOnlyItsConnection() throws {
        let frame = "{\"method\":\"org.varlink.service.GetInfo\",\"x\":" + String(repeating: "[", count: 200)
            + String(repeating: "]", count: 200) + "}\0"
        try assertClosesOnlyItsConnection(Array(frame.utf8), "deep nesting")
    }

    func testFiveCallsInOneWrite_areAnsweredInOrder() throws {
        let pins = [pin, "", "abc", "1111", otherPin]
        var bytes: [UInt8] = []
        for candidate in pins {
            bytes += try JSONSerialization.data(withJSONObject: [
                "method": "io.pinvault.Vault.CheckPin", "parameters": ["pin": candidate],
            ])
            bytes.append(0)
        }
        try client.send(raw: bytes)
        let expected: [[String]] = [[], ["empty"], ["notDigits", "tooShort"], ["tooShort", "tooManyIdenticalDigits", "denyListed"], []]
        for violations in expected {
            let reply = try client.receive()
            XCTAssertSuccess(reply)
            XCTAssertEqual(reply.strings("violations"), violations)
        }
    }

    func testAOnewayCall_getsNoReply_butTakesEffect() throws {
        try client.send("io.pinvault.Vault.Register", ["user": "oneway", "pin": pin], oneway: true)
        try client.send("io.pinvault.Vault.List", ["user": "oneway"])
        let reply = try client.receive()
        XCTAssertSuccess(reply)
        let credentials = try XCTUnwrap(reply["credentials"] as? [[String: Any]], reply.description)
        XCTAssertEqual(credentials.count, 1)
        XCTAssertEqual(credentials.first?.string("user"), "oneway")
    }

    func testCallsFollowedByAHalfClose_areStillAnswered_thenTheConnectionCloses() throws {
        try client.send("io.pinvault.Vault.CheckPin", ["pin": pin])
        try client.send("io.pinvault.Vault.Register", ["user": "half-closed", "pin": pin])
        client.shutdownWriting()
        XCTAssertEqual(try client.receive().bool("valid"), true)
        let registered = try client.receive()
        XCTAssertSuccess(registered)
        XCTAssertEqual(registered.object("credential")?.string("user"), "half-closed")
        XCTAssertTrue(client.isClosedByPeer(timeout: 30), "the daemon kept a finished connection open")
    }

    func testAOnewayCall_takesEffect_evenWhenThePeerClosesAtOnce() throws {
        do {
            let leaving = try daemon.connect()
            try leaving.send("io.pinvault.Vault.Register", ["user": "fire-and-forget", "pin": pin], oneway: true)
        }
        XCTAssertTrue(try eventually(timeout: 30) { try client.list(user: "fire-and-forget").count == 1 })
        XCTAssertSuccess(try client.call("org.varlink.service.GetInfo"))
    }
}
