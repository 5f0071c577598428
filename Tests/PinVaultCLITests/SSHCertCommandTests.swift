import Foundation
import PinVaultTestKit
import XCTest

/// `pinvault ssh-cert add|list|remove` with certificates OpenSSH's `ssh-keygen -s`
/// made for the credential's key, through the real daemon, and what its ssh-agent
/// socket then offers (`ssh-add -L`).
final class SSHCertCommandTests: CLITestCase {
    private var files: TemporaryDirectory!

    override func setUpWithError() throws {
        try super.setUpWithError()
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/ssh-keygen") else {
            throw XCTSkip("SSHCertCommandTests need ssh-keygen (Debian's openssh-client): make test installs it")
        }
        files = try TemporaryDirectory()
        try keygen(["-q", "-t", "ed25519", "-N", "", "-C", "", "-f", files.path + "/ca"])
    }

    override func tearDownWithError() throws {
        files = nil
        try super.tearDownWithError()
    }

    @discardableResult
    private func keygen(_ arguments: [String]) throws -> Subprocess.Result {
        let result = try Subprocess.run("/usr/bin/ssh-keygen", arguments)
        guard result.status == 0 else { throw TestKitError("ssh-keygen \(arguments): \(result)") }
        return result
    }

    /// Registers an ssh key of alice; the file holding its public key line.
    private func sshKeyFile(label: String = "ssh") throws -> (keyId: String, path: String) {
        let keyId = try XCTUnwrap(try register("alice", label: label, purpose: "ssh")["keyId"] as? String)
        let line = try pinvault(["ssh-key", "alice", "--key-id", keyId])
        XCTAssertEqual(line.status, 0, "\(line)")
        let path = files.path + "/\(label).pub"
        try line.standardOutput.write(toFile: path, atomically: true, encoding: .utf8)
        return (keyId, path)
    }

    /// `ssh-keygen -s ca` of `keyFile`; the certificate file and its base64 blob.
    private func certify(_ keyFile: String, serial: Int = 1, host: Bool = false, name: String) throws -> (path: String, blob: String) {
        let copy = files.path + "/\(name).pub"
        if copy != keyFile { try FileManager.default.copyItem(atPath: keyFile, toPath: copy) }
        try keygen(["-q", "-s", files.path + "/ca", "-I", "id-\(name)", "-n", host ? "host.example.org" : "alice,admin",
                    "-z", "\(serial)"] + (host ? ["-h"] : []) + [copy])
        let path = files.path + "/\(name)-cert.pub"
        let fields = try String(contentsOfFile: path, encoding: .utf8).split(separator: " ")
        XCTAssertEqual(fields.first, "ssh-ed25519-cert-v01@openssh.com")
        return (path, String(fields[1]))
    }

    private func attached(_ keyId: String) throws -> [String] {
        let listed = try pinvaultJSON(["ssh-cert", "list", "alice", "--key-id", keyId])
        return (listed["sshCertificates"] as? [String] ?? []).map { String($0.split(separator: " ")[1]) }
    }

    func testACertificate_attached_isListed_andOfferedBesideItsKey_thenDetached() throws {
        let key = try sshKeyFile()
        let certificate = try certify(key.path, name: "laptop")
        let added = try pinvault(["ssh-cert", "add", "alice", certificate.path])
        XCTAssertEqual(added.status, 0, "\(added)")
        XCTAssertEqual(added.standardOutput, "1 certificate(s) attached to \(key.keyId).\n")
        XCTAssertEqual(try pinvault(["ssh-cert", "add", "alice", certificate.path]).status, 0, "attaching it again changes nothing")
        XCTAssertEqual(try attached(key.keyId), [certificate.blob])
        let human = try pinvault(["ssh-cert", "list", "alice"])
        XCTAssertEqual(human.standardOutput,
                       "ssh-ed25519-cert-v01@openssh.com \(certificate.blob) id=id-laptop principals=alice,admin\n")
        let credential = try XCTUnwrap(try listed().first { $0["keyId"] as? String == key.keyId })
        XCTAssertEqual(credential["sshCertificates"] as? [String], [certificate.blob], "Varlink List carries it")

        // Unlocked, the daemon's agent offers the key, then its certificate.
        XCTAssertEqual(try pinvault(["unlock", "alice", "--ttl", "60s", "--pin-stdin"], input: pin + "\n").status, 0)
        let offered = try Subprocess.run("/usr/bin/ssh-add", ["-L"], environment: ["SSH_AUTH_SOCK": daemon.sshAgentSocketPath])
        XCTAssertEqual(offered.status, 0, "\(offered)")
        let lines = offered.standardOutput.split(separator: "\n").map { $0.split(separator: " ").prefix(2).joined(separator: " ") }
        let keyLine = try String(contentsOfFile: key.path, encoding: .utf8).split(separator: " ").prefix(2).joined(separator: " ")
        XCTAssertEqual(lines, [keyLine, "ssh-ed25519-cert-v01@openssh.com " + certificate.blob])

        let removed = try pinvault(["ssh-cert", "remove", "alice", certificate.path])
        XCTAssertEqual(removed.standardOutput, "0 certificate(s) attached to \(key.keyId).\n", "\(removed)")
        XCTAssertEqual(try attached(key.keyId), [])
        let after = try Subprocess.run("/usr/bin/ssh-add", ["-L"], environment: ["SSH_AUTH_SOCK": daemon.sshAgentSocketPath])
        XCTAssertEqual(after.standardOutput.split(separator: "\n").count, 1, "the open session stops offering it: \(after)")
        let again = try pinvault(["ssh-cert", "remove", "alice", certificate.path])
        XCTAssertEqual(again.standardOutput, "0 certificate(s) attached to \(key.keyId).\n", "detaching it again changes nothing: \(again)")
    }

    /// Only a user certificate of the credential's own key is taken, and only by an
    /// ssh credential; what is no certificate at all never leaves the command.
    func testAHostCertificate_anotherKeys_andAnAppsKey_areRefused_andNothingIsAttached() throws {
        let key = try sshKeyFile()
        let other = try sshKeyFile(label: "other")
        let host = try certify(key.path, host: true, name: "host")
        let refusedHost = try pinvaultJSON(["ssh-cert", "add", "alice", "--key-id", key.keyId, host.path], expecting: 64)
        XCTAssertEqual((refusedHost["parameters"] as? [String: Any])?["parameter"] as? String, "certificate")
        let othersCertificate = try certify(other.path, name: "others")
        XCTAssertEqual(try pinvault(["ssh-cert", "add", "alice", "--key-id", key.keyId, othersCertificate.path]).status, 64)
        XCTAssertEqual(try attached(key.keyId), [])

        let app = try XCTUnwrap(try register("alice", label: "app")["keyId"] as? String)
        let wrongPurpose = try pinvaultJSON(["ssh-cert", "add", "alice", "--key-id", app, othersCertificate.path], expecting: 11)
        XCTAssertEqual(wrongPurpose["error"] as? String, "io.pinvault.Vault.WrongPurpose")

        let garbage = files.path + "/garbage-cert.pub"
        try "ssh-ed25519-cert-v01@openssh.com AAAA\n".write(toFile: garbage, atomically: true, encoding: .utf8)
        let local = try pinvault(["ssh-cert", "add", "alice", "--key-id", key.keyId, garbage])
        XCTAssertEqual(local.status, 64)
        XCTAssertTrue(local.standardError.contains("holds no OpenSSH certificate of an ssh-ed25519 or ecdsa-sha2-nistp256 key"), local.standardError)
    }

    /// Sixteen certificates per key; the seventeenth is TooManyCertificates, and room
    /// made by removing one takes it.
    func testSixteenCertificates_atMost() throws {
        let key = try sshKeyFile()
        var certificates: [(path: String, blob: String)] = []
        for serial in 1...17 { certificates.append(try certify(key.path, serial: serial, name: "c\(serial)")) }
        for certificate in certificates.prefix(16) {
            XCTAssertEqual(try pinvault(["ssh-cert", "add", "alice", certificate.path]).status, 0)
        }
        let full = try pinvaultJSON(["ssh-cert", "add", "alice", certificates[16].path], expecting: 1)
        XCTAssertEqual(full["error"] as? String, "io.pinvault.Vault.TooManyCertificates")
        XCTAssertEqual((full["parameters"] as? [String: Any])?["limit"] as? Int, 16)
        XCTAssertEqual(try pinvault(["ssh-cert", "add", "alice", certificates[0].path]).status, 0, "one already attached is no more")
        XCTAssertEqual(try pinvault(["ssh-cert", "remove", "alice", certificates[3].path]).status, 0)
        XCTAssertEqual(try pinvault(["ssh-cert", "add", "alice", certificates[16].path]).status, 0)
        XCTAssertEqual(try attached(key.keyId), certificates.enumerated().filter { $0.offset != 3 }.map(\.element.blob),
                       "in the order they were attached")
    }
}
