import PinVaultSSHProtocol
import XCTest

/// What an agent signs with an ssh key (an SSH userauth request, an SSHSIG preimage),
/// parsed exactly as OpenSSH's agent does, and what Authenticate and Sign refuse as
/// possibly SSH data. The inputs are built here from the RFCs, independently of the
/// codec (`Wire`).
final class SSHSignedDataTests: XCTestCase {
    private let key = Wire.ed25519Blob([UInt8](repeating: 9, count: 32))
    private let hostKey = Wire.ed25519Blob([UInt8](repeating: 4, count: 32))
    private let session = [UInt8](repeating: 0xa5, count: 32)

    /// RFC 4252 §7, field by field.
    private func userauth(
        session: [UInt8]? = nil, type: UInt8 = 50, user: String = "alice", service: String = "ssh-connection",
        method: String = "publickey", sigFollows: UInt8 = 1, algorithm: String = "ssh-ed25519", key: [UInt8]? = nil,
        hostKey: [UInt8]? = nil
    ) -> [UInt8] {
        Wire.string(session ?? self.session) + [type] + Wire.string(user) + Wire.string(service) + Wire.string(method)
            + [sigFollows] + Wire.string(algorithm) + Wire.string(key ?? self.key) + (hostKey.map(Wire.string) ?? [])
    }

    /// PROTOCOL.sshsig §3.
    private func sshsig(namespace: String = "git", reserved: [UInt8] = [], algorithm: String = "sha512", hashBytes: Int = 64) -> [UInt8] {
        Array("SSHSIG".utf8) + Wire.string(namespace) + Wire.string(reserved) + Wire.string(algorithm)
            + Wire.string([UInt8](repeating: 3, count: hashBytes))
    }

    private func parse(_ data: [UInt8]) -> SSHSignedData? { data.withUnsafeBytes(SSHSignedData.parse) }
    private func resembles(_ data: [UInt8]) -> Bool { data.withUnsafeBytes(SSHSignedData.resemblesSSHData) }

    // MARK: Userauth requests

    func testAPublickeyRequest_parses_withEveryField_andEncodesBackToItself() throws {
        let data = userauth()
        XCTAssertEqual(data.count, 148, "143 + |user|, as the review measured")
        guard case .userauth(let request) = parse(data) else { return XCTFail("not a userauth request") }
        XCTAssertEqual(request.sessionIdentifier, session)
        XCTAssertEqual(request.user, Array("alice".utf8))
        XCTAssertEqual(request.method, Array("publickey".utf8))
        XCTAssertEqual(request.keyBlob, key)
        XCTAssertNil(request.hostKeyBlob)
        XCTAssertTrue(request.names(keyBlob: key, algorithm: "ssh-ed25519"))
        XCTAssertFalse(request.names(keyBlob: hostKey, algorithm: "ssh-ed25519"))
        XCTAssertFalse(request.names(keyBlob: key, algorithm: "ssh-rsa"))
        XCTAssertEqual(request.encoded, data)
        XCTAssertTrue(resembles(data))
    }

    func testAHostboundRequest_parses_withItsHostKey() throws {
        let data = userauth(method: "publickey-hostbound-v00@openssh.com", hostKey: hostKey)
        guard case .userauth(let request) = parse(data) else { return XCTFail("not a userauth request") }
        XCTAssertEqual(request.hostKeyBlob, hostKey)
        XCTAssertEqual(request.encoded, data)
    }

    /// Each departure from what OpenSSH's client sends is refused, as OpenSSH's agent
    /// refuses it — and still resembles SSH data, so Authenticate refuses it too.
    func testNearMisses_doNotParse_butStillResembleSSHData() {
        let misses: [(String, [UInt8])] = [
            ("empty session identifier", userauth(session: [])),
            ("sig-follows FALSE", userauth(sigFollows: 0)),
            ("another service", userauth(service: "ssh-userauth")),
            ("another method", userauth(method: "hostbased")),
            ("hostbound without its host key", userauth(method: "publickey-hostbound-v00@openssh.com")),
            ("a host key for the plain method", userauth(hostKey: hostKey)),
            ("a NUL in the user", userauth(user: "ali\u{0}ce")),
            ("a NUL in the algorithm", userauth(algorithm: "ssh-ed25519\u{0}")),
            ("no algorithm", userauth(algorithm: "")),
            ("no key", userauth(key: [])),
            ("a host key that is no key blob", userauth(method: "publickey-hostbound-v00@openssh.com", hostKey: [1, 2])),
        ]
        for (why, data) in misses {
            XCTAssertNil(parse(data), why)
            XCTAssertTrue(resembles(data), why)
        }
    }

    func testTruncatedOrTrailingData_isNeitherParsedNorResemblesAUserauth() {
        let data = userauth()
        for cut in [1, 2, 31, 32, data.count - 1] {
            XCTAssertNil(parse(Array(data.prefix(cut))), "cut at \(cut)")
        }
        XCTAssertNil(parse(data + [0]), "a trailing byte")
        XCTAssertNil(parse(data + Wire.string("x") + [0]), "a host key string and a byte more")
        XCTAssertFalse(resembles(Array(data.dropLast())), "a cut request is no request")
        XCTAssertFalse(resembles(data + [0]), "nor one with a trailing byte")
        XCTAssertFalse(resembles(userauth(type: 51)), "another message number")
    }

    /// The layout sshd verifies for clients whose banner it marks SSH_OLD_SESSIONID
    /// ("3.0 SecureCRT*", "1.7 SecureFX*"): the session identifier bare, with no length
    /// before it, then the usual request. The agents never sign it (OpenSSH's agent
    /// does not either); Authenticate and Sign refuse it, for every size an exchange
    /// hash may have and any bytes in it.
    func testARequestAfterABareSessionIdentifier_resemblesSSHData_forEveryIdentifierOf16To64Bytes() {
        var generator = SystemRandomNumberGenerator()
        for size in 16...64 {
            for _ in 0..<20 {
                let identifier = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let request = Array(userauth().dropFirst(4 + session.count))
                let hostbound = Array(userauth(method: "publickey-hostbound-v00@openssh.com", hostKey: hostKey).dropFirst(4 + session.count))
                XCTAssertTrue(resembles(identifier + request), "a bare \(size)-byte identifier: \(identifier)")
                XCTAssertTrue(resembles(identifier + hostbound), "hostbound, a bare \(size)-byte identifier: \(identifier)")
                XCTAssertNil(parse(identifier + request), "no agent signs the old layout")
            }
        }
    }

    /// sshd's `hostbased` request (a host key's signature): algorithm, key, client host
    /// and client user after the method, no boolean; with the identifier as a string or bare.
    func testAHostbasedRequest_resemblesSSHData() {
        let rest = [50] + Wire.string("alice") + Wire.string("ssh-connection") + Wire.string("hostbased")
            + Wire.string("ssh-ed25519") + Wire.string(key) + Wire.string("client.example.org.") + Wire.string("alice")
        XCTAssertTrue(resembles(Wire.string(session) + rest))
        XCTAssertTrue(resembles(session + rest))
        XCTAssertFalse(resembles(Wire.string(session) + rest + [0]), "not with a trailing byte")
        XCTAssertNil(parse(Wire.string(session) + rest))
    }

    // MARK: SSHSIG

    func testAnSSHSIGPreimage_parses_forBothHashes_andEncodesBackToItself() throws {
        for (algorithm, bytes) in [("sha512", 64), ("sha256", 32)] {
            let data = sshsig(algorithm: algorithm, hashBytes: bytes)
            guard case .sshsig(let preimage) = parse(data) else { return XCTFail(algorithm) }
            XCTAssertEqual(preimage.namespace, Array("git".utf8))
            XCTAssertEqual(preimage.hash.count, bytes)
            XCTAssertEqual(preimage.encoded, data)
            XCTAssertTrue(resembles(data))
        }
        XCTAssertEqual(sshsig().count, 6 + 7 + 4 + 10 + 68, "95 bytes, as the review measured")
    }

    func testSSHSIGNearMisses_doNotParse_butAllResembleSSHData() {
        let misses: [(String, [UInt8])] = [
            ("an empty namespace", sshsig(namespace: "")),
            ("a NUL in the namespace", sshsig(namespace: "g\u{0}it")),
            ("an unknown hash", sshsig(algorithm: "md5", hashBytes: 16)),
            ("a SHA-256 of 64 bytes", sshsig(algorithm: "sha256", hashBytes: 64)),
            ("a trailing byte", sshsig() + [0]),
            ("cut short", Array(sshsig().dropLast())),
            ("the magic alone", Array("SSHSIG".utf8)),
        ]
        for (why, data) in misses {
            XCTAssertNil(parse(data), why)
            XCTAssertTrue(resembles(data), why)
        }
    }

    // MARK: What Authenticate refuses

    func testACertificateToSign_resemblesSSHData() {
        let certificate = Wire.string("ssh-ed25519-cert-v01@openssh.com") + Wire.string([UInt8](repeating: 1, count: 32)) + [0, 1]
        XCTAssertNil(parse(certificate))
        XCTAssertTrue(resembles(certificate))
        XCTAssertTrue(resembles(Wire.string("ssh-rsa-cert-v00@openssh.com")))
    }

    /// A relying party's challenges — random bytes, text, JSON, the PAM module's — are
    /// nothing an SSH server or ssh-keygen would take.
    func testOrdinaryChallenges_doNotResembleSSHData() {
        var generator = SystemRandomNumberGenerator()
        for length in [1, 16, 32, 64, 148, 1024] {
            for _ in 0..<200 {
                let random = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                XCTAssertFalse(resembles(random), "random \(length) bytes: \(random)")
            }
        }
        for text in ["challenge", #"{"nonce":"abc","origin":"https://example.org"}"#, "SSH", "SSHSI"] {
            XCTAssertFalse(resembles(Array(text.utf8)), text)
        }
        XCTAssertFalse(resembles(Array("pam_pinvault v1\u{0}login\u{0}alice\u{0}".utf8) + [UInt8](repeating: 7, count: 32)))
        XCTAssertFalse(resembles([]))
    }
}
