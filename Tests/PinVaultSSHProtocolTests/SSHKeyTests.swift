import PinVaultCrypto
import PinVaultSSHProtocol
import XCTest

/// PinVault's keys in SSH's encodings (RFC 8709 for Ed25519, RFC 5656 for ECDSA P-256),
/// and the replies the agent sends.
final class SSHKeyTests: XCTestCase {
    /// RFC 8032 TEST 1's public key; its OpenSSH line was computed independently
    /// (Python's struct and base64).
    private let publicKey = Wire.hex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
    private let encoded = "AAAAC3NzaC1lZDI1NTE5AAAAINdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1Ea"
    /// A P-256 point (the key docs/FORMAT.md derives from the seed 00 01 … 1f) and its
    /// line's base64, computed with Python's struct and base64.
    private let point = Wire.hex(
        "04b29823b6c68cc92791e519c3c42e2ed385f7a764ad64de33a109a967886c7921"
            + "40ee39249ec71f1caeed3ef234b00e529a2c0e16ed99cca17392e74b2bd0e80e")
    private let encodedPoint = "AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBLKYI7bGjMknkeUZw8QuLtOF96dkrWTeM6EJqWeIbHkhQO45JJ7HHxyu7T7yNLAOUposDhbtmcyhc5LnSyvQ6A4="

    private var ed25519: SSHKey { SSHKey(algorithm: .ed25519, publicKey: publicKey) }
    private var p256: SSHKey { SSHKey(algorithm: .p256, publicKey: point) }

    func testTheKeyLine_isWhatOpenSSHWrites() {
        XCTAssertEqual(ed25519.line(comment: "alice (laptop)"), "ssh-ed25519 \(encoded) alice (laptop)")
        XCTAssertEqual(ed25519.line(comment: nil), "ssh-ed25519 \(encoded)")
        XCTAssertEqual(ed25519.blob, Wire.ed25519Blob(publicKey))
        XCTAssertEqual(p256.line(comment: "bob"), "ecdsa-sha2-nistp256 \(encodedPoint) bob")
        XCTAssertEqual(p256.blob, Wire.string("ecdsa-sha2-nistp256") + Wire.string("nistp256") + Wire.string(point))
    }

    func testAComment_staysOnOneLine() {
        XCTAssertEqual(ed25519.line(comment: "a\nb\rc"), "ssh-ed25519 \(encoded) a b c")
    }

    func testTheComment_isUserAndLabel_orUser() {
        XCTAssertEqual(SSHKey.comment(user: "alice", label: "laptop"), "alice (laptop)")
        XCTAssertEqual(SSHKey.comment(user: "alice", label: nil), "alice")
    }

    func testAKeyBlob_givesItsKey_andAnyOtherBlobIsRefused() throws {
        XCTAssertEqual(SSHKey(blob: Wire.ed25519Blob(publicKey)), ed25519)
        XCTAssertEqual(SSHKey(blob: p256.blob), p256)
        var compressed = point
        compressed[0] = 0x02
        for blob in [
            Wire.string("ssh-rsa") + Wire.string(publicKey),
            Wire.string("ssh-ed25519") + Wire.string(Array(publicKey.prefix(31))),
            Wire.string("ssh-ed25519") + Wire.string(point),
            Wire.ed25519Blob(publicKey) + [0],
            Wire.string("ssh-ed25519"),
            Wire.string("ecdsa-sha2-nistp256") + Wire.string(point),
            Wire.string("ecdsa-sha2-nistp256") + Wire.string("nistp384") + Wire.string(point),
            Wire.string("ecdsa-sha2-nistp256") + Wire.string("nistp256") + Wire.string(Array(compressed.prefix(33))),
            Wire.string("ecdsa-sha2-nistp256") + Wire.string("nistp256") + Wire.string(compressed),
            Wire.string("ecdsa-sha2-nistp256") + Wire.string("nistp256") + Wire.string(publicKey),
            p256.blob + [0],
            [],
        ] {
            XCTAssertNil(SSHKey(blob: blob), "\(blob)")
        }
    }

    func testReplies_areWholeFrames() {
        XCTAssertEqual(SSHAgentReply.failure(), [0, 0, 0, 1, 5])
        XCTAssertEqual(SSHAgentReply.success(), [0, 0, 0, 1, 6])
        XCTAssertEqual(SSHAgentReply.identities([]), [0, 0, 0, 5, 12, 0, 0, 0, 0])
        let one = SSHAgentReply.identities([.init(keyBlob: ed25519.blob, comment: "alice")])
        XCTAssertEqual(one, Wire.frame(12, Wire.uint32(1) + Wire.string(Wire.ed25519Blob(publicKey)) + Wire.string("alice")))
        let signature = [UInt8](repeating: 3, count: 64)
        XCTAssertEqual(
            SSHAgentReply.signature(signature, algorithm: .ed25519),
            Wire.frame(14, Wire.string(Wire.string("ssh-ed25519") + Wire.string(signature)))
        )
        XCTAssertNil(SSHAgentReply.signature(Array(signature.prefix(63)), algorithm: .ed25519))
        XCTAssertEqual(SSHAgentReply.queryAnswer(["query", "session-bind@openssh.com"]), Wire.frame(6, Wire.string("query") + Wire.string("session-bind@openssh.com")))
    }

    /// An ECDSA signature's SSH blob (RFC 5656 §3.1.2): `string (mpint r, mpint s)`,
    /// each mpint the DER INTEGER's own contents (a leading 00 kept where the top bit is
    /// set); a DER that is not a canonical pair is no signature.
    func testAP256Signature_isItsRAndSAsMpints() {
        let r: [UInt8] = [0x00, 0x81] + [UInt8](repeating: 9, count: 31)
        let s: [UInt8] = [0x42] + [UInt8](repeating: 8, count: 30)
        let body = [0x02, UInt8(r.count)] + r + [0x02, UInt8(s.count)] + s
        let der = [0x30, UInt8(body.count)] + body
        XCTAssertEqual(
            SSHAgentReply.signature(der, algorithm: .p256),
            Wire.frame(14, Wire.string(Wire.string("ecdsa-sha2-nistp256") + Wire.string(Wire.string(r) + Wire.string(s)))))
        XCTAssertNil(KeyAlgorithm.p256.sshSignatureBlob(der + [0]))
        XCTAssertNil(KeyAlgorithm.p256.sshSignatureBlob([UInt8](repeating: 3, count: 64)))
    }
}
