import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// A PIN stays on this machine (SECURITY.md, docs/PAM.md): a real sshd (`UsePAM yes`,
/// `PasswordAuthentication yes`, keyboard-interactive) whose PAM stack is common-auth as
/// the shipped profile makes it (pam_pinvault first, then pam_unix), and a throw-away
/// user with a login credential and a Unix password. Over SSH the PIN is worth nothing
/// and costs nothing; the password works as before; `allow_remote` opts in.
final class RemoteSignInTests: PAMTestCase {
    private let unixPassword = "Unix-pass-8427"
    private var stage: TemporaryDirectory!
    private var recorder: PAMItemRecorder!
    private var client: SSHPasswordLogin!
    /// sshd's PAM service, kept until the test ends.
    private var service: PAMServiceFile?

    override func setUpWithError() throws {
        try super.setUpWithError()
        guard access(SSHServer.binary, X_OK) == 0 else {
            XCTFail("\(SSHServer.binary) is missing: `make test-deps` installs openssh-server")
            throw XCTSkip("no sshd")
        }
        stage = try TemporaryDirectory(mode: 0o755)
        recorder = try PAMItemRecorder()
        client = try SSHPasswordLogin()
        try user.allowLogin(password: unixPassword)
        try startDaemon()
        try registerAsUser()
    }

    override func tearDownWithError() throws {
        client = nil
        service = nil
        recorder = nil
        stage = nil
        try super.tearDownWithError()
    }

    /// sshd for the test user, its PAM service common-auth as the profile writes it
    /// (pam_pinvault with `options`), after a recorder of the items sshd sets.
    private func sshd(_ options: [String] = [], network: SSHServer.Network = .loopback) throws -> SSHServer {
        let service = try PAMServiceFile(
            [recorder.line]
                + (try PAMProfile.commonAuth(module: module.path, options: ["socket=\(daemon.socketPath)"] + options))
                + ["account required pam_unix.so", "session required pam_permit.so"]
        )
        let server = try SSHServer(directory: stage.path, allowUsers: user.name, settings: [
            "UsePAM": "yes", "PasswordAuthentication": "yes", "KbdInteractiveAuthentication": "yes",
            "PubkeyAuthentication": "no",
        ], pamService: service.name, network: network)
        self.service = service
        return server
    }

    private func failedAttempts() throws -> Int? {
        try usersCredentials().first?["failedAttempts"] as? Int
    }

    func testAnSSHPasswordLogin_sendingThePin_fails_andCostsTheOwnerNothing() throws {
        let server = try sshd()
        let before = try daemonRequests()
        let login = try client.login(to: server, user: user.name, secret: pin, method: .password)
        // Nothing reached the daemon: no List, no Authenticate (the one call since is GetStats).
        XCTAssertEqual(try daemonRequests(), before + 1, daemon.log)
        XCTAssertFalse(login.loggedIn, "the PIN logged in over SSH: \(login)\nsshd:\n\(server.log)")
        XCTAssertNotEqual(login.status, 0, login.description)
        XCTAssertEqual(try failedAttempts(), 0, "the PIN sent over SSH was counted")
        XCTAssertFalse(daemon.log.contains("event=auth"), daemon.log)
        // What sshd told PAM: a loopback address, and its own marks.
        let items = recorder.transactions.first
        XCTAssertEqual(items?["PAM_RHOST"], "127.0.0.1", "\(recorder.transactions)")
        XCTAssertEqual(items?["PAM_TTY"], "ssh", "\(recorder.transactions)")
        XCTAssertTrue(items?["SSH_CONNECTION"]?.hasPrefix("127.0.0.1 ") == true, "\(recorder.transactions)")
    }

    func testAnSSHPasswordLogin_withTheUnixPassword_succeeds_andTheDaemonHearsNothing() throws {
        let server = try sshd()
        let before = try daemonRequests()
        let login = try client.login(to: server, user: user.name, secret: unixPassword, method: .password)
        XCTAssertEqual(try daemonRequests(), before + 1, "the password went to pinvaultd:\n\(daemon.log)")
        XCTAssertTrue(login.loggedIn, "\(login)\nsshd:\n\(server.log)")
        XCTAssertEqual(try failedAttempts(), 0, "the Unix password was tried as the PIN")
    }

    func testKeyboardInteractive_isRefusedTheSameWay_andNeverAsksForThePin() throws {
        let server = try sshd()
        let withPin = try client.login(to: server, user: user.name, secret: pin, method: .keyboardInteractive)
        XCTAssertFalse(withPin.loggedIn, "\(withPin)\nsshd:\n\(server.log)")
        // OpenSSH shows a keyboard-interactive prompt as "(user@host) " and PAM's text.
        XCTAssertEqual(withPin.prompts, ["(\(user.name)@127.0.0.1) Password: "], "only pam_unix asks: \(withPin)")
        let withPassword = try client.login(to: server, user: user.name, secret: unixPassword, method: .keyboardInteractive)
        XCTAssertTrue(withPassword.loggedIn, "\(withPassword)\nsshd:\n\(server.log)")
        XCTAssertEqual(withPassword.prompts, ["(\(user.name)@127.0.0.1) Password: "], withPassword.description)
        XCTAssertEqual(try failedAttempts(), 0)
        XCTAssertFalse(daemon.log.contains("event=auth"), daemon.log)
    }

    /// A client that is not on loopback, as sshd sees one from the network: sshd in a
    /// network namespace of its own, the client bound to another address there.
    func testAClientAtAnotherAddress_isRefused_asWell() throws {
        let server = try sshd(network: .privateNamespace)
        let withPin = try client.login(to: server, user: user.name, secret: pin, method: .password, fromElsewhere: true)
        XCTAssertFalse(withPin.loggedIn, "\(withPin)\nsshd:\n\(server.log)")
        XCTAssertEqual(recorder.transactions.first?["PAM_RHOST"], SSHServer.namespaceClientAddress, "\(recorder.transactions)")
        let withPassword = try client.login(to: server, user: user.name, secret: unixPassword, method: .password, fromElsewhere: true)
        XCTAssertTrue(withPassword.loggedIn, "\(withPassword)\nsshd:\n\(server.log)")
        XCTAssertEqual(try failedAttempts(), 0)
    }

    /// The opt-in works, and its risk is real: with `allow_remote` the PIN logs in over
    /// SSH, and a login with the Unix password now spends one of the PIN's attempts
    /// (sshd's password conversation hands the password to the PIN prompt first).
    func testAllowRemote_letsThePinLogIn_andThePasswordNowCostsAnAttempt() throws {
        let server = try sshd(["allow_remote"])
        let password = try client.login(to: server, user: user.name, secret: pin, method: .password)
        XCTAssertTrue(password.loggedIn, "\(password)\nsshd:\n\(server.log)\npinvaultd:\n\(daemon.log)")
        let keyboard = try client.login(to: server, user: user.name, secret: pin, method: .keyboardInteractive)
        XCTAssertTrue(keyboard.loggedIn, "\(keyboard)\nsshd:\n\(server.log)")
        XCTAssertEqual(keyboard.prompts, ["(\(user.name)@127.0.0.1) PIN for \(user.name): "], keyboard.description)
        XCTAssertEqual(daemon.log.components(separatedBy: "event=auth.ok").count - 1, 2, daemon.log)
        XCTAssertEqual(try failedAttempts(), 0)

        let unix = try client.login(to: server, user: user.name, secret: unixPassword, method: .password)
        XCTAssertTrue(unix.loggedIn, "\(unix)\nsshd:\n\(server.log)")
        XCTAssertEqual(try failedAttempts(), 1, "allow_remote: the Unix password was tried as the PIN")
    }
}
