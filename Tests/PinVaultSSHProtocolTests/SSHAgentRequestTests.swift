import PinVaultSSHProtocol
import XCTest

/// Every message the agent reads (draft-ietf-sshm-ssh-agent, OpenSSH's PROTOCOL.agent),
/// and the malformed ones.
final class SSHAgentRequestTests: XCTestCase {
    private func parse(_ message: [UInt8]) throws -> SSHAgentRequest {
        try message.withUnsafeBytes { try SSHAgentRequest.parse($0) }
    }

    private func assertMalformed(_ message: [UInt8], _ expected: SSHAgentMessageError, line: UInt = #line) {
        XCTAssertThrowsError(try parse(message), line: line) { XCTAssertEqual($0 as? SSHAgentMessageError, expected, line: line) }
    }

    private let blob = Wire.ed25519Blob([UInt8](repeating: 9, count: 32))

    func testRequestIdentities() throws {
        XCTAssertEqual(try parse([11]), .requestIdentities)
    }

    func testSignRequest_keyDataAndFlags() throws {
        let message = [13] + Wire.string(blob) + Wire.string("data") + Wire.uint32(4)
        XCTAssertEqual(try parse(message), .sign(keyBlob: blob, data: Array("data".utf8), flags: 4))
    }

    func testRemoveIdentity_andRemoveAll() throws {
        XCTAssertEqual(try parse([18] + Wire.string(blob)), .removeIdentity(keyBlob: blob))
        XCTAssertEqual(try parse([19]), .removeAllIdentities)
    }

    func testExtension_nameAndTheUnwrappedRest() throws {
        XCTAssertEqual(try parse([27] + Wire.string("query")), .extension(name: Array("query".utf8), contents: []))
        let bind = Wire.string(blob) + Wire.string("id") + Wire.string("sig") + [1]
        XCTAssertEqual(
            try parse([27] + Wire.string("session-bind@openssh.com") + bind),
            .extension(name: Array("session-bind@openssh.com".utf8), contents: bind)
        )
    }

    func testAddKeysSmartcardsAgentLockAndUnknownTypes_areUnsupported_unread() throws {
        for type: UInt8 in [1, 17, 20, 21, 22, 23, 25, 26, 28, 99, 255] {
            XCTAssertEqual(try parse([type, 0xff, 0xff]), .unsupported(type: type), "type \(type)")
        }
    }

    func testMalformedMessages_areRefused_namingWhy() {
        assertMalformed([], .truncated)
        assertMalformed([11, 0], .trailingBytes)
        assertMalformed([19, 0], .trailingBytes)
        assertMalformed([13] + Wire.string(blob) + Wire.string("data"), .truncated)  // no flags
        assertMalformed([13] + Wire.string(blob) + Wire.string("data") + Wire.uint32(0) + [0], .trailingBytes)
        assertMalformed([13, 0, 0, 0], .truncated)  // a cut length
        assertMalformed([13] + Wire.uint32(1000) + [1, 2], .truncated)  // a string past the end
        assertMalformed([13, 0xff, 0xff, 0xff, 0xff], .truncated)
        assertMalformed([18], .truncated)
        assertMalformed([27], .truncated)
    }
}
