import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// `sudo -S -k true` as the test user, through a PAM service of the test's own: a
/// sudoers drop-in names it with `Defaults:USER pam_service=…`, so the machine's
/// /etc/pam.d/sudo is never touched. Both files are removed when the test ends.
final class SudoTests: PAMTestCase {
    private var sudoers: String?
    /// The PAM service sudo uses, kept until the test ends.
    private var service: PAMServiceFile?

    override func tearDownWithError() throws {
        if let sudoers { try? FileManager.default.removeItem(atPath: sudoers) }
        sudoers = nil
        service = nil  // XCTest keeps the test case alive: release the file now
        try super.tearDownWithError()
    }

    /// Installs a drop-in that lets the test user run /usr/bin/true as root after
    /// authenticating through `service` (checked with visudo before it goes live).
    /// `pamRHost`: sudo's `pam_rhost`, which sets PAM_RHOST to this machine's hostname.
    private func allowTrue(through service: PAMServiceFile, pamRHost: Bool = false) throws {
        let text = """
            # Written by PinVault's PAM tests; removed when they finish.
            Defaults:\(user.name) pam_service=\(service.name), pam_login_service=\(service.name), passwd_tries=1, !lecture\(pamRHost ? ", pam_rhost" : "")
            \(user.name) ALL=(root) /usr/bin/true

            """
        let staged = try TemporaryDirectory()
        let draft = staged.path + "/sudoers"
        try text.write(toFile: draft, atomically: true, encoding: .utf8)
        let check = try Subprocess.run("/usr/sbin/visudo", ["-c", "-f", draft])
        guard check.status == 0 else { throw TestKitError("visudo refused the drop-in: \(check)") }
        // No dot in the name: sudo skips such files in /etc/sudoers.d.
        let path = "/etc/sudoers.d/pinvault-test-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o440]) else {
            throw TestKitError("cannot write \(path)")
        }
        sudoers = path
    }

    /// sudo's PAM service: a recorder of what sudo tells PAM, the module, then pam_deny.
    private func sudoService(_ recorder: PAMItemRecorder) throws -> PAMServiceFile {
        let service = try PAMServiceFile([
            recorder.line,
            moduleLine("sufficient"),
            "auth required pam_deny.so",
            "account required pam_permit.so",
            "session required pam_permit.so",
        ])
        self.service = service
        return service
    }

    private func sudo(_ input: String) throws -> Subprocess.Result {
        try Subprocess.run("/usr/bin/setpriv", user.setpriv(["/usr/bin/sudo", "-S", "-k", "true"]), input: Data(input.utf8))
    }

    private func requireSudo() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sudo") else {
            XCTFail("sudo is missing: `make test` installs it (TEST_PACKAGES)")
            throw XCTSkip("no sudo")
        }
    }

    func testSudo_withThePin_runsTheCommand_andAWrongPinIsRefused() throws {
        try requireSudo()
        try startDaemon()
        try registerAsUser()
        let recorder = try PAMItemRecorder()
        try allowTrue(through: try sudoService(recorder))
        let right = try sudo(pin + "\n")
        XCTAssertEqual(right.status, 0, right.description)
        XCTAssertTrue(right.standardError.contains("PIN for \(user.name): "), right.description)
        let line = daemon.log.split(separator: "\n").first { $0.contains("event=auth.ok") }
        XCTAssertTrue(line?.contains("uid=0") == true && line?.contains("ownerUid=\(user.uid)") == true,
                      "sudo runs the module as root, which names the owner: \(daemon.log)")
        // By default sudo sets no PAM_RHOST.
        XCTAssertEqual(recorder.transactions.first?["PAM_RHOST"], "(unset)", "\(recorder.transactions)")

        let wrong = try sudo(wrongPin + "\n")
        XCTAssertNotEqual(wrong.status, 0, wrong.description)
        XCTAssertTrue(wrong.standardError.contains("incorrect password attempt"), wrong.description)
        XCTAssertEqual(try usersCredentials().first?["failedAttempts"] as? Int, 1, "the wrong PIN was counted")
        // sudo 1.9.13 passes PAM_SILENT to pam_authenticate, and the module honours it.
        XCTAssertFalse(wrong.standardError.contains("Wrong PIN"), wrong.description)
        XCTAssertFalse(right.standardError.contains(pin) || wrong.standardError.contains(wrongPin), "a PIN was echoed")
    }

    /// `Defaults pam_rhost`: sudo names this machine's hostname as the remote host,
    /// which is local.
    func testSudo_withPamRhost_namesThisMachine_andThePinWorks() throws {
        try requireSudo()
        try startDaemon()
        try registerAsUser()
        let recorder = try PAMItemRecorder()
        try allowTrue(through: try sudoService(recorder), pamRHost: true)
        let right = try sudo(pin + "\n")
        XCTAssertEqual(right.status, 0, right.description)
        XCTAssertTrue(right.standardError.contains("PIN for \(user.name): "), right.description)
        var buffer = [CChar](repeating: 0, count: 256)
        XCTAssertEqual(gethostname(&buffer, buffer.count), 0)
        XCTAssertEqual(recorder.transactions.first?["PAM_RHOST"], String(cString: buffer), "\(recorder.transactions)")
    }
}
