import PinVaultSSHProtocol
import XCTest

/// Ed25519 in SSH's encodings (RFC 8709), and the replies the agent sends.
final class SSHEd25519Tests: XCTestCase {
    /// RFC 8032 TEST 1's public key; its OpenSSH line was computed independently
    /// (Python's struct and base64).
    private let publicKey = Wire.hex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
    private let encoded = "AAAAC3NzaC1lZDI1NTE5AAAAINdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1Ea"

    func testTheKeyLine_isWhatOpenSSHWrites() {
        XCTAssertEqual(SSHEd25519.publicKeyLine(publicKey: publicKey, comment: "alice (laptop)"), "ssh-ed25519 \(encoded) alice (laptop)")
        XCTAssertEqual(SSHEd25519.publicKeyLine(publicKey: publicKey, comment: nil), "ssh-ed25519 \(encoded)")
        XCTAssertEqual(SSHEd25519.keyBlob(publicKey: publicKey), Wire.ed25519Blob(publicKey))
    }

    func testAComment_staysOnOneLine() {
        XCTAssertEqual(SSHEd25519.publicKeyLine(publicKey: publicKey, comment: "a\nb\rc"), "ssh-ed25519 \(encoded) a b c")
    }

    func testTheComment_isUserAndLabel_orUser() {
        XCTAssertEqual(SSHEd25519.comment(user: "alice", label: "laptop"), "alice (laptop)")
        XCTAssertEqual(SSHEd25519.comment(user: "alice", label: nil), "alice")
    }

    func testAKeyBlob_givesItsKey_andAnyOtherBlobIsRefused() throws {
        XCTAssertEqual(try Wire.ed25519Blob(publicKey).withUnsafeBytes { try SSHEd25519.publicKey(fromBlob: $0) }, publicKey)
        for blob in [
            Wire.string("ssh-rsa") + Wire.string(publicKey),
            Wire.string("ssh-ed25519") + Wire.string(Array(publicKey.prefix(31))),
            Wire.ed25519Blob(publicKey) + [0],
            Wire.string("ssh-ed25519"),
            [],
        ] {
            XCTAssertThrowsError(try blob.withUnsafeBytes { try SSHEd25519.publicKey(fromBlob: $0) })
        }
    }

    func testReplies_areWholeFrames() {
        XCTAssertEqual(SSHAgentReply.failure(), [0, 0, 0, 1, 5])
        XCTAssertEqual(SSHAgentReply.success(), [0, 0, 0, 1, 6])
        XCTAssertEqual(SSHAgentReply.identities([]), [0, 0, 0, 5, 12, 0, 0, 0, 0])
        let one = SSHAgentReply.identities([.init(publicKey: publicKey, comment: "alice")])
        XCTAssertEqual(one, Wire.frame(12, Wire.uint32(1) + Wire.string(Wire.ed25519Blob(publicKey)) + Wire.string("alice")))
        let signature = [UInt8](repeating: 3, count: 64)
        XCTAssertEqual(
            SSHAgentReply.signature(signature),
            Wire.frame(14, Wire.string(Wire.string("ssh-ed25519") + Wire.string(signature)))
        )
        // SSH_AGENT_EXTENSION_RESPONSE (29), the extension's name, then the names it answers.
        XCTAssertEqual(
            SSHAgentReply.queryAnswer(["query", "session-bind@openssh.com"]),
            Wire.frame(29, Wire.string("query") + Wire.string("query") + Wire.string("session-bind@openssh.com"))
        )
    }
}
