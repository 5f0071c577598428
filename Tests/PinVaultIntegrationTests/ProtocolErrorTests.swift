import Foundation
import PinVaultTestKit
import XCTest

/// The org.varlink.service errors (io.pinvault.Vault.varlink): InvalidParameter for malformed values,
/// MethodNotFound, InterfaceNotFound. None of them costs the caller an attempt or
/// the connection.
final class ProtocolErrorTests: DaemonTestCase {
    override func setUpWithError() throws {
        try startDaemon()
        try client.register(user: "alice", pin: pin)
    }

    private func assertInvalidParameter(
        _ method: String, _ parameters: [String: Any], names expected: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let reply = try client.vault(method, parameters)
        XCTAssertError(reply, "org.varlink.service.InvalidParameter", file: file, line: line)
        XCTAssertEqual(reply.string("parameter"), expected, reply.description, file: file, line: line)
    }

    func testAuthenticate_withAChallengeOutOfRangeOrNotBase64_answersInvalidParameterChallenge() throws {
        let base: [String: Any] = ["user": "alice", "pin": pin]
        let bad: [String] = [
            "", "!!!!", "AAA", "AA==AA==", "QUJD\n",
            Data(count: 1025).base64EncodedString(),
        ]
        for challenge in bad {
            try assertInvalidParameter("Authenticate", base.merging(["challenge": challenge]) { $1 }, names: "challenge")
        }
        XCTAssertEqual(try client.list()[0].int("failedAttempts"), 0)
        for size in [1, 1024] {
            XCTAssertSuccess(try client.authenticate(user: "alice", pin: pin, challenge: Data(count: size)))
        }
    }

    func testAUserOver256Bytes_answersInvalidParameterUser() throws {
        try assertInvalidParameter("Register", ["user": String(repeating: "u", count: 257), "pin": pin], names: "user")
        try assertInvalidParameter("Register", ["user": String(repeating: "é", count: 129), "pin": pin], names: "user")
        try assertInvalidParameter("Register", ["user": "", "pin": pin], names: "user")
        try assertInvalidParameter("List", ["user": String(repeating: "u", count: 257)], names: "user")
        XCTAssertNotNil(try client.register(user: String(repeating: "é", count: 128), pin: pin))
    }

    func testAnUnknownParameter_answersInvalidParameterNamingIt() throws {
        try assertInvalidParameter("Authenticate", ["user": "alice", "pin": pin, "challenge": "AA==", "colour": "red"], names: "colour")
        try assertInvalidParameter("GetPolicy", ["verbose": true], names: "verbose")
        let info = try client.call("org.varlink.service.GetInfo", ["extra": 1])
        XCTAssertError(info, "org.varlink.service.InvalidParameter")
        XCTAssertEqual(info.string("parameter"), "extra")
    }

    func testAParameterOfTheWrongType_answersInvalidParameterNamingIt() throws {
        try assertInvalidParameter("Register", ["user": 5, "pin": pin], names: "user")
        try assertInvalidParameter("Register", ["user": "bob", "pin": 258046], names: "pin")
        try assertInvalidParameter("Authenticate", ["user": "alice", "pin": pin, "challenge": ["AA=="]], names: "challenge")
        try assertInvalidParameter("List", ["ownerUid": "0"], names: "ownerUid")
        try assertInvalidParameter("List", ["ownerUid": -1], names: "ownerUid")
        try assertInvalidParameter("Authenticate", ["user": "alice", "keyId": "ABC", "pin": pin, "challenge": "AA=="], names: "keyId")
        try assertInvalidParameter("CommitUnregister", ["keyId": String(repeating: "ab", count: 16), "token": "short"], names: "token")
    }

    func testAMissingRequiredParameter_answersInvalidParameterNamingIt() throws {
        try assertInvalidParameter("Authenticate", ["user": "alice", "pin": pin], names: "challenge")
        try assertInvalidParameter("Register", ["pin": pin], names: "user")
    }

    func testAnUnknownMethod_answersMethodNotFound() throws {
        let vault = try client.vault("Fly")
        XCTAssertError(vault, "org.varlink.service.MethodNotFound")
        XCTAssertTrue(vault.string("method")?.hasSuffix("Fly") == true, vault.description)
        XCTAssertError(try client.call("org.varlink.service.Fly"), "org.varlink.service.MethodNotFound")
        XCTAssertSuccess(try client.call("org.varlink.service.GetInfo"))
    }

    func testAnUnknownInterface_answersInterfaceNotFound() throws {
        let call = try client.call("com.example.Nothing.Method")
        XCTAssertError(call, "org.varlink.service.InterfaceNotFound")
        XCTAssertEqual(call.string("interface"), "com.example.Nothing")

        let description = try client.call("org.varlink.service.GetInterfaceDescription", ["interface": "com.example.Nothing"])
        XCTAssertError(description, "org.varlink.service.InterfaceNotFound")
        XCTAssertEqual(description.string("interface"), "com.example.Nothing")
    }
}
