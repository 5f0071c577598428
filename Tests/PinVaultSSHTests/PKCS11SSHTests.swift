import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// OpenSSH's own PKCS#11 client (Debian 12's 9.2, which skips Ed25519 PKCS#11 keys)
/// with pinvault-pkcs11.so and a P-256 `ssh` credential: `ssh-keygen -D` prints its
/// key, and `ssh -I` logs in to a real sshd on 127.0.0.1, the PIN asked through
/// SSH_ASKPASS and checked by pinvaultd; the signature is CKM_ECDSA over ssh's
/// SHA-256 hash, pinvaultd's SignDigest.
final class PKCS11SSHTests: XCTestCase {
    private let pin = "258046"

    func testSshI_logsInToARealSshd_withAP256SSHToken_andSshKeygenDPrintsItsKey() throws {
        try OpenSSHFixture.requirements(of: self)
        let stage = try TemporaryDirectory(mode: 0o755)
        let user = try SSHTestUser(home: stage.path + "/home")
        let daemon = try TestDaemon()
        try daemon.start()
        defer { _ = try? daemon.stop() }
        let modules = try StagedCModules.shared()

        // The credential is the user's: registered on a connection of that uid.
        let registered = try ForeignPeer(socketPath: daemon.socketPath, uid: user.uid, gid: user.gid).session([
            (VarlinkClient.vault + ".Register",
             ["user": user.name, "pin": pin, "label": "pkcs11", "purpose": "ssh", "algorithm": "p256"] as [String: Any]),
        ])
        XCTAssertNil(registered.replies.first?.error, "\(registered.replies)")
        let environment = ["PINVAULT_SOCKET": daemon.socketPath]

        // ssh-keygen -D reads the public key: no login.
        let listed = try user.run(["/usr/bin/ssh-keygen", "-D", modules.pkcs11Module], environment: environment)
        XCTAssertEqual(listed.status, 0, listed.description)
        let keyLine = try XCTUnwrap(listed.standardOutput.split(separator: "\n").first { $0.hasPrefix("ecdsa-sha2-nistp256 ") },
                                    listed.description)
        XCTAssertTrue(keyLine.hasSuffix(" \(user.name) (pkcs11)"), String(keyLine))

        let authorizedKeys = stage.path + "/authorized_keys"
        try (keyLine + "\n").write(toFile: authorizedKeys, atomically: true, encoding: .utf8)
        chmod(authorizedKeys, 0o644)
        let server = try SSHServer(directory: stage.path, allowUsers: user.name, settings: ["AuthorizedKeysFile": authorizedKeys])

        let askpassDirectory = stage.path + "/askpass"
        mkdir(askpassDirectory, 0o700)
        chown(askpassDirectory, user.uid, user.gid)
        let askpass = try ScriptedAskpass(directory: askpassDirectory, owner: (user.uid, user.gid))
        try askpass.answer([pin])
        // Not BatchMode: ssh asks no PKCS#11 PIN in batch mode. No agent, no key files: only the token.
        let ssh = [
            "/usr/bin/ssh", "-F", "/dev/null", "-I", modules.pkcs11Module, "-o", "IdentityAgent=none",
            "-o", "StrictHostKeyChecking=no",
            "-o", "UserKnownHostsFile=/dev/null", "-o", "GlobalKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
            "-o", "ConnectTimeout=10", "-o", "PasswordAuthentication=no", "-o", "KbdInteractiveAuthentication=no",
            "-p", "\(server.port)", "\(user.name)@127.0.0.1", "echo logged-in-through-pkcs11",
        ]
        let login = try user.run(ssh, environment: environment.merging([
            "SSH_ASKPASS": askpass.path, "SSH_ASKPASS_REQUIRE": "force", "DISPLAY": ":0",
        ]) { $1 }, timeout: 60)
        XCTAssertEqual(login.status, 0, login.description + "\nsshd:\n" + server.log)
        XCTAssertTrue(login.standardOutput.contains("logged-in-through-pkcs11"), login.description)
        XCTAssertEqual(askpass.prompts.count, 1, "one PIN, asked once: \(askpass.prompts)")
        XCTAssertTrue(server.log.contains("Accepted publickey for \(user.name)"), server.log)
        XCTAssertTrue(server.log.contains("ECDSA SHA256:"), server.log)
    }
}
