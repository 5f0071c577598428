import Foundation
import Glibc
import PinVaultCrypto
import PinVaultSSHProtocol
import PinVaultTestKit
import XCTest

/// The attack the review found, tried with OpenSSH itself, and closed: an agent whose
/// only signer is `Authenticate` (an app passing a relying party's challenge, with the
/// owner typing the PIN) once logged into sshd and forged git signatures with the key
/// PinVault's agent offers. Now no key signs SSH data through Authenticate or Sign, and
/// the agent signs nothing but SSH data, with `ssh` keys alone (SECURITY.md, "Signature
/// domains").
final class SignatureDomainTests: XCTestCase {
    private var fixture: OpenSSHFixture!

    override func setUpWithError() throws {
        try OpenSSHFixture.requirements(of: self)
        fixture = try OpenSSHFixture()
    }

    override func tearDownWithError() throws {
        if let daemon = fixture?.daemon, daemon.process != nil {
            XCTAssertEqual(try daemon.stop(), 0, "pinvaultd did not exit cleanly:\n\(daemon.log)")
        }
        fixture = nil
    }

    /// One credential of the test user, registered as the user through the CLI.
    private struct Key {
        let purpose: String
        let keyId: String
        let publicKey: [UInt8]
        /// Its OpenSSH public key line, and a file holding it (for `ssh-keygen -f`).
        let line: String
        let file: String
    }

    private func register(_ purpose: String) throws -> Key {
        let registered = try fixture.checked(
            fixture.pinvault(["register", fixture.user.name, "--label", purpose, "--purpose", purpose, "--pin-stdin", "--json"],
                             input: fixture.pin + "\n"),
            "pinvault register --purpose \(purpose)"
        )
        let reply = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(registered.standardOutput.utf8)) as? [String: Any])
        let credential = try XCTUnwrap(reply["credential"] as? [String: Any])
        XCTAssertEqual(credential["purpose"] as? String, purpose)
        return try key(purpose, keyId: try XCTUnwrap(credential["keyId"] as? String),
                       publicKey: [UInt8](try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(credential["publicKey"] as? String)))))
    }

    private func key(_ purpose: String, keyId: String, publicKey: [UInt8]) throws -> Key {
        let line = SSHKey(algorithm: .ed25519, publicKey: publicKey).line(comment: purpose)
        let file = fixture.stage.path + "/\(purpose).pub"
        try (line + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o644)
        return Key(purpose: purpose, keyId: keyId, publicKey: publicKey, line: line, file: file)
    }

    /// The fixture's `ssh` credential.
    private func sshKey() throws -> Key {
        let listed = try fixture.checked(fixture.pinvault(["list", fixture.user.name, "--json"]), "pinvault list")
        let reply = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [String: Any])
        let credential = try XCTUnwrap((reply["credentials"] as? [[String: Any]])?.first { $0["purpose"] as? String == "ssh" })
        return try key("ssh", keyId: try XCTUnwrap(credential["keyId"] as? String),
                       publicKey: [UInt8](try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(credential["publicKey"] as? String)))))
    }

    /// An agent offering `key` that signs through pinvaultd's Authenticate with the
    /// user's PIN, as an app would for a relying party (root passes the owner's uid, as
    /// pam_pinvault does); `answers` collects what the daemon said.
    private func authenticatingProxy(_ key: Key, answers: AnswerLog) throws -> ScriptedSSHAgent {
        let (socket, user, uid, pin, keyId) = (fixture.daemon.socketPath, fixture.user.name, fixture.user.uid, fixture.pin, key.keyId)
        return try ScriptedSSHAgent(
            socketPath: fixture.stage.path + "/proxy-\(key.purpose).sock",
            identities: [.init(keyBlob: SSHKey(algorithm: .ed25519, publicKey: key.publicKey).blob, comment: key.purpose)]
        ) { _, data in
            guard let client = try? VarlinkClient(socketPath: socket),
                  let reply = try? client.vault("Authenticate", [
                      "user": user, "keyId": keyId, "pin": pin, "challenge": Data(data).base64EncodedString(), "ownerUid": Int(uid),
                  ])
            else { return nil }
            answers.append((reply.error ?? "signed") + (reply.string("parameter").map { "(\($0))" } ?? ""))
            return reply.string("signature").flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) }
        }
    }

    func testAnAgentSigningThroughAuthenticate_logsInWithNoKey_ofAnyPurpose() throws {
        let keys = [try register("authenticate"), try register("login"), try sshKey()]
        // The control: the same scripted agent signing with a key it holds itself logs
        // in, so what fails below fails because of what pinvaultd refused.
        let control = try SigningKeyPair(algorithm: .ed25519, seed: try KeyAlgorithm.generateSeed())
        let controlKey = try key("control", keyId: "", publicKey: control.publicKey)
        try fixture.authorize(keys.map(\.line) + [controlKey.line])
        let controlAgent = try ScriptedSSHAgent(
            socketPath: fixture.stage.path + "/control.sock", identities: [.init(keyBlob: SSHKey(algorithm: .ed25519, publicKey: control.publicKey).blob, comment: "control")]
        ) { _, data in data.withUnsafeBytes { try? control.sign($0) } }
        let controlled = try fixture.ssh("echo control-ok", agent: controlAgent.socketPath)
        XCTAssertEqual(controlled.standardOutput, "control-ok\n", "the scripted agent cannot log in at all: \(controlled)")

        for key in keys {
            let answers = AnswerLog()
            let proxy = try authenticatingProxy(key, answers: answers)
            let login = try fixture.ssh("echo pinvault-ssh-ok", agent: proxy.socketPath)
            XCTAssertNotEqual(login.status, 0, "\(key.purpose): logged in through Authenticate: \(login)")
            XCTAssertFalse(login.standardOutput.contains("pinvault-ssh-ok"))
            // What ssh asked the agent to sign is a real userauth request for this key…
            let asked = try XCTUnwrap(proxy.signed.first, "\(key.purpose): ssh never asked the agent")
            guard case .userauth(let request) = asked.withUnsafeBytes(SSHSignedData.parse) else {
                return XCTFail("\(key.purpose): ssh asked to sign what is no userauth request: \(asked)")
            }
            XCTAssertTrue(request.names(keyBlob: SSHKey(algorithm: .ed25519, publicKey: key.publicKey).blob, algorithm: "ssh-ed25519"))
            // …and Authenticate refused it before the PIN: nothing was counted.
            let expected = key.purpose == "ssh" ? "io.pinvault.Vault.WrongPurpose" : "org.varlink.service.InvalidParameter(challenge)"
            XCTAssertEqual(Set(answers.all), [expected], "\(key.purpose)")
            proxy.stop()
        }
        let listed = try fixture.checked(fixture.pinvault(["list", fixture.user.name, "--json"]), "pinvault list")
        XCTAssertFalse(listed.standardOutput.contains("\"failedAttempts\": 1"), listed.standardOutput)
    }

    /// git's signature through Authenticate fails, and the SSHSIG preimage ssh-keygen
    /// asked for is refused by Sign too.
    func testAnSSHSIGPreimage_throughAuthenticateOrSign_isRefused() throws {
        let app = try register("authenticate")
        let answers = AnswerLog()
        let proxy = try authenticatingProxy(app, answers: answers)
        let (signed, _) = try fixture.signAndVerify("commit 1\n", agent: proxy.socketPath, keyFile: app.file, keyLine: app.line)
        XCTAssertNotEqual(signed.status, 0, "ssh-keygen -Y sign signed through Authenticate: \(signed)")
        let preimage = try XCTUnwrap(proxy.signed.first, "ssh-keygen never asked the agent")
        guard case .sshsig(let parsed) = preimage.withUnsafeBytes(SSHSignedData.parse) else {
            return XCTFail("ssh-keygen asked to sign what is no SSHSIG preimage")
        }
        XCTAssertEqual(parsed.namespace, Array("git".utf8))
        XCTAssertEqual(answers.all, ["org.varlink.service.InvalidParameter(challenge)"])

        let root = try fixture.daemon.connect()
        let keyId = try XCTUnwrap(try root.register(user: "root-app", pin: fixture.pin)["keyId"] as? String)
        _ = try root.succeeding("Unlock", ["user": "root-app", "keyId": keyId, "pin": fixture.pin, "ttlSeconds": 60])
        let refused = try root.vault("Sign", ["keyId": keyId, "challenge": Data(preimage).base64EncodedString()])
        XCTAssertEqual(refused.error, "org.varlink.service.InvalidParameter", "\(refused)")
        XCTAssertEqual(refused.string("parameter"), "challenge")
    }

    /// An app's key, unlocked, is none of ssh's business: not listed, not usable.
    func testAnUnlockedAuthenticateKey_isNotListed_andDoesNotLogIn() throws {
        let app = try register("authenticate")
        try fixture.authorize([app.line])
        _ = try fixture.checked(
            fixture.pinvault(["unlock", fixture.user.name, "--key-id", app.keyId, "--ttl", "5m", "--pin-stdin"], input: fixture.pin + "\n"),
            "pinvault unlock"
        )
        let listed = try fixture.sshAddList()
        XCTAssertEqual(listed.status, 1, "ssh-add -l: \(listed)")
        XCTAssertTrue(listed.standardOutput.contains("no identities"), "\(listed)")
        let login = try fixture.ssh("echo pinvault-ssh-ok")
        XCTAssertNotEqual(login.status, 0, "\(login)")
        XCTAssertNotEqual(try fixture.signAndVerify("x\n", keyFile: app.file, keyLine: app.line).signed.status, 0)
    }

    /// An ssh key does all an ssh key is for: logs in, signs with ssh-keygen, and signs
    /// a git commit that git verifies.
    func testAnSSHKey_logsIn_andSignsAGitCommit() throws {
        try fixture.unlock()
        try fixture.assertAllWorks()
        let (committed, verified) = try fixture.gitCommitSigned()
        XCTAssertEqual(committed.status, 0, "git commit -S: \(committed)")
        XCTAssertEqual(verified?.status, 0, "git verify-commit: \(String(describing: verified))")
        XCTAssertTrue(verified?.standardError.contains("Good \"git\" signature") == true, "\(String(describing: verified))")
    }

    /// The command line says so, with its own status: an ssh key for auth or sign, an
    /// app's key for ssh-key.
    func testTheCommandLine_answersWrongPurpose_withStatus11() throws {
        let app = try register("authenticate")
        let ssh = try sshKey()
        let auth = try fixture.pinvault(
            ["auth", fixture.user.name, "--key-id", ssh.keyId, "--challenge-hex", "00", "--pin-stdin"], input: fixture.pin + "\n"
        )
        XCTAssertEqual(auth.status, 11, "\(auth)")
        XCTAssertTrue(auth.standardError.contains("is for ssh, not for this"), auth.standardError)
        _ = try fixture.checked(
            fixture.pinvault(["unlock", fixture.user.name, "--key-id", ssh.keyId, "--pin-stdin"], input: fixture.pin + "\n"),
            "pinvault unlock"
        )
        let sign = try fixture.pinvault(["sign", fixture.user.name, "--key-id", ssh.keyId, "--challenge-hex", "00"])
        XCTAssertEqual(sign.status, 11, "\(sign)")
        let line = try fixture.pinvault(["ssh-key", fixture.user.name, "--key-id", app.keyId])
        XCTAssertEqual(line.status, 11, "\(line)")
        XCTAssertEqual(line.standardOutput, "")
    }
}

/// What the daemon answered a scripted agent's calls, from its thread.
final class AnswerLog: @unchecked Sendable {
    private let lock = NSLock()
    private var answers: [String] = []

    func append(_ answer: String) { lock.withLock { answers.append(answer) } }
    var all: [String] { lock.withLock { answers } }
}
