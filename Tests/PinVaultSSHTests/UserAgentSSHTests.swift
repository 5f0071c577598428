import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// `pinvault agent` with OpenSSH itself: the agent runs as the test user, as its user
/// unit would, asks through a scripted `SSH_ASKPASS`, and Debian's ssh, ssh-add, git and
/// sshd on 127.0.0.1 use it. Beside it, the daemon's own agent socket for what both
/// agents share: forwarding (`ssh -A`, `session-bind@openssh.com`) and certificates
/// (`TrustedUserCAKeys`).
final class UserAgentSSHTests: XCTestCase {
    private var fixture: OpenSSHFixture!
    private var agent: ChildProcess?
    private var prompt: ScriptedAskpass!

    private var agentDirectory: String { fixture.user.home + "/agent" }
    private var agentSocket: String { agentDirectory + "/agent.sock" }
    private var agentLog: String { fixture.stage.path + "/agent.log" }
    private var agentOutput: String { (try? String(contentsOfFile: agentLog, encoding: .utf8)) ?? "" }

    override func setUpWithError() throws {
        try OpenSSHFixture.requirements(of: self)
        fixture = try OpenSSHFixture(algorithm: OpenSSHFixture.algorithm(of: self), serverSettings: ["AllowAgentForwarding": "yes"])
        guard mkdir(agentDirectory, 0o700) == 0, chown(agentDirectory, fixture.user.uid, fixture.user.gid) == 0 else {
            throw TestKitError("mkdir \(agentDirectory): errno \(errno)")
        }
        prompt = try ScriptedAskpass(directory: agentDirectory, owner: (fixture.user.uid, fixture.user.gid))
    }

    override func tearDownWithError() throws {
        if let agent { XCTAssertEqual(agent.stop(timeout: 10), 0, "pinvault agent did not exit cleanly:\n\(agentOutput)") }
        agent = nil
        if let daemon = fixture?.daemon, daemon.process != nil {
            XCTAssertEqual(try daemon.stop(), 0, "pinvaultd did not exit cleanly:\n\(daemon.log)")
        }
        fixture = nil
    }

    // MARK: Helpers

    /// Starts `pinvault agent` as the user, with `settings` (`[agent]` lines) as its
    /// agent.toml and the scripted prompt as its `SSH_ASKPASS`; waits until it serves.
    private func startAgent(settings: [String] = []) throws {
        let config = agentDirectory + "/agent.toml"
        try (["[agent]"] + settings).map { $0 + "\n" }.joined().write(toFile: config, atomically: true, encoding: .utf8)
        chown(config, fixture.user.uid, fixture.user.gid)
        let user = fixture.user
        agent = try ChildProcess(
            path: "/usr/bin/setpriv",
            arguments: ["--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", "--", fixture.pinvault, "agent",
                        "--agent-socket", agentSocket, "--socket", fixture.daemon.socketPath, "--config", config],
            environment: ["PATH": "/usr/bin:/bin", "HOME": user.home, "USER": user.name, "SSH_ASKPASS": prompt.path],
            logPath: agentLog
        )
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if (try? SSHAgentClient(path: agentSocket, timeoutSeconds: 5)) != nil { return }
            guard agent?.isRunning == true else { throw TestKitError("pinvault agent exited:\n\(agentOutput)") }
            usleep(20_000)
        }
        throw TestKitError("pinvault agent did not serve within 30 s:\n\(agentOutput)")
    }

    /// ssh through the per-user agent (or `agent`), running `command`.
    private func ssh(_ command: String = "echo pinvault-ssh-ok; id -un", agent: String? = nil, options: [String] = []) throws -> RunResult {
        try fixture.ssh(command, agent: agent ?? agentSocket, options: options)
    }

    private func assertLoggedIn(_ login: RunResult, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(login.status, 0, "ssh: \(login)\nagent:\n\(agentOutput)\nsshd:\n\(fixture.server.log)", file: file, line: line)
        XCTAssertEqual(login.standardOutput, "pinvault-ssh-ok\n\(fixture.user.name)\n", file: file, line: line)
    }

    private func assertRefused(_ login: RunResult, _ why: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNotEqual(login.status, 0, "\(why): ssh logged in: \(login)", file: file, line: line)
        XCTAssertFalse(login.standardOutput.contains("pinvault-ssh-ok"), why, file: file, line: line)
    }

    /// The credential as `pinvault list --json` shows it to the user.
    private func credential() throws -> [String: Any] {
        let listed = try fixture.checked(fixture.pinvault(["list", fixture.user.name, "--json"]), "pinvault list")
        let reply = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [String: Any])
        return try XCTUnwrap((reply["credentials"] as? [[String: Any]])?.first { $0["purpose"] as? String == "ssh" })
    }

    /// The fingerprint of sshd's host key, as `ssh-keygen -lf` gives it.
    private func hostKeyFingerprint() throws -> String {
        let listed = try fixture.checked(
            Spawned.run(["/usr/bin/ssh-keygen", "-lf", fixture.stage.path + "/ssh_host_ed25519_key.pub"], environment: [:]),
            "ssh-keygen -lf (host key)"
        )
        return String(listed.standardOutput.split(separator: " ").dropFirst().first ?? "")
    }

    /// `ssh -A` to sshd, and from there ssh again to sshd through the forwarded agent.
    private func forwardedLogin(agent: String? = nil) throws -> RunResult {
        let inner = fixture.sshCommand("echo pinvault-forwarded-ok").map { "'" + $0 + "'" }.joined(separator: " ")
        return try ssh(inner, agent: agent, options: ["-A"])
    }

    // MARK: The PIN when ssh needs the key

    /// The key is listed locked; the first login asks for the PIN once, saying which key,
    /// for what and on which host; later logins and a signed git commit ask nothing.
    func testSsh_asksForThePINOnce_whenItNeedsTheKey_thenNoMore() throws {
        try asksForThePINOnce_whenItNeedsTheKey_thenNoMore()
    }

    /// The same with an ECDSA P-256 key.
    func testSsh_asksForThePINOnce_whenItNeedsTheKey_thenNoMore_p256() throws {
        XCTAssertTrue(fixture.keyLine.hasPrefix("ecdsa-sha2-nistp256 "), fixture.keyLine)
        try asksForThePINOnce_whenItNeedsTheKey_thenNoMore()
        XCTAssertTrue(fixture.server.log.contains("ECDSA SHA256:"), "not by the P-256 key:\n\(fixture.server.log)")
    }

    private func asksForThePINOnce_whenItNeedsTheKey_thenNoMore() throws {
        try prompt.answer([fixture.pin])
        try startAgent()
        let listed = try fixture.user.run(["/usr/bin/ssh-add", "-l"], environment: ["SSH_AUTH_SOCK": agentSocket])
        XCTAssertEqual(listed.status, 0, "\(listed)\n\(agentOutput)")
        XCTAssertTrue(listed.standardOutput.contains(try fixture.fingerprint()), listed.standardOutput)
        XCTAssertTrue(prompt.prompts.isEmpty, "listing asked for a PIN")

        assertLoggedIn(try ssh())
        XCTAssertEqual(prompt.prompts.count, 1, "\(prompt.prompts)")
        let asked = try XCTUnwrap(prompt.prompts.first)
        XCTAssertTrue(asked.hasPrefix("[pin]Use your PinVault key \(fixture.user.name) (ssh)"), asked)
        XCTAssertTrue(asked.contains(try fixture.fingerprint()), asked)
        XCTAssertTrue(asked.contains("to log in as \(fixture.user.name)"), asked)
        XCTAssertTrue(asked.contains("(host key \(try hostKeyFingerprint()))"), "the host session-bind named: \(asked)")

        assertLoggedIn(try ssh())
        let (committed, verified) = try fixture.gitCommitSigned(agent: agentSocket)
        XCTAssertEqual(committed.status, 0, "git commit -S: \(committed)")
        XCTAssertTrue(verified?.standardError.contains("Good \"git\" signature") == true, "\(String(describing: verified))")
        XCTAssertEqual(prompt.prompts.count, 1, "asked again while unlocked: \(prompt.prompts)")
        XCTAssertEqual(fixture.daemon.log.components(separatedBy: "event=session.unlock").count - 1, 1, fixture.daemon.log)
    }

    /// A cancelled prompt refuses the login and costs no attempt; a wrong PIN is
    /// counted and asked again, saying so, and the right one then logs in.
    func testACancelledPrompt_costsNothing_andAWrongPIN_isAskedAgain() throws {
        try prompt.answer(["cancel", fixture.newPin, fixture.pin])
        try startAgent()
        assertRefused(try ssh(), "a cancelled prompt")
        XCTAssertEqual(try credential()["failedAttempts"] as? Int, 0, "a cancelled prompt was counted")
        XCTAssertEqual(prompt.prompts.count, 1)

        assertLoggedIn(try ssh())
        XCTAssertEqual(prompt.prompts.count, 3, "\(prompt.prompts)")
        XCTAssertTrue(prompt.prompts[2].contains("Wrong PIN:"), prompt.prompts[2])
        XCTAssertTrue(prompt.prompts[2].contains("attempts left"), prompt.prompts[2])
        XCTAssertEqual(try credential()["failedAttempts"] as? Int, 0, "the right PIN clears the count")
        XCTAssertTrue(fixture.daemon.log.contains("event=auth.failed"), "the wrong PIN was counted: \(fixture.daemon.log)")
    }

    /// A key listed in `confirm` waits for a yes before each login; a no refuses it.
    func testAKeyToConfirm_asksBeforeEachLogin() throws {
        try prompt.answer(["yes", fixture.pin, "yes", "no"])
        try startAgent(settings: ["confirm = [\"ssh\"]"])
        assertLoggedIn(try ssh())
        assertLoggedIn(try ssh())
        assertRefused(try ssh(), "a no")
        XCTAssertEqual(prompt.prompts.map { String($0.prefix(9)) }, ["[confirm]", "[pin]Use ", "[confirm]", "[confirm]"])
    }

    // MARK: Forwarding

    /// ssh -A: the forwarded agent's request is refused (and audited) unless the key is
    /// allowed to be used so; the first hop's own login is not forwarded and works.
    func testAForwardedAgent_getsNoSignature_fromThePerUserAgent() throws {
        try prompt.answer([fixture.pin])
        try startAgent()
        let nested = try forwardedLogin()
        XCTAssertFalse(nested.standardOutput.contains("pinvault-forwarded-ok"), "signed for a forwarded agent: \(nested)")
        XCTAssertEqual(prompt.prompts.count, 1, "the first hop's PIN only: \(prompt.prompts)")
        XCTAssertTrue(fixture.daemon.log.contains("event=sign.forwarding_refused"), fixture.daemon.log)
    }

    func testAForwardedAgent_signs_withAKeyAllowedForForwarding() throws {
        try prompt.answer([fixture.pin])
        try startAgent(settings: ["allow_forwarding = [\"ssh\"]"])
        let nested = try forwardedLogin()
        XCTAssertEqual(nested.status, 0, "\(nested)\nagent:\n\(agentOutput)\nsshd:\n\(fixture.server.log)")
        XCTAssertEqual(nested.standardOutput, "pinvault-forwarded-ok\n")
    }

    /// The daemon's socket does the same with `pinvault unlock` and `--allow-forwarding`.
    func testTheDaemonsSocket_refusesAForwardedAgent_unlessUnlockedToAllowIt() throws {
        let socket = fixture.daemon.sshAgentSocketPath
        _ = try fixture.unlock()
        let refused = try forwardedLogin(agent: socket)
        XCTAssertFalse(refused.standardOutput.contains("pinvault-forwarded-ok"), "signed for a forwarded agent: \(refused)")
        assertLoggedIn(try ssh(agent: socket))
        _ = try fixture.checked(
            fixture.pinvault(["unlock", fixture.user.name, "--ttl", "5m", "--allow-forwarding", "--pin-stdin"], input: fixture.pin + "\n"),
            "pinvault unlock --allow-forwarding"
        )
        let allowed = try forwardedLogin(agent: socket)
        XCTAssertEqual(allowed.status, 0, "\(allowed)\nsshd:\n\(fixture.server.log)")
        XCTAssertEqual(allowed.standardOutput, "pinvault-forwarded-ok\n")
    }

    // MARK: Certificates

    /// A server that trusts a CA, not the key: the certificate attached with
    /// `pinvault ssh-cert add` logs in through both agents; detached, nothing does.
    func testACertificate_logsInWhereOnlyItsCAIsTrusted_throughBothAgents() throws {
        try certificateLogsInWhereOnlyItsCAIsTrusted_throughBothAgents(serverLogs: "ED25519-CERT")
    }

    /// The same with a certificate of an ECDSA P-256 key (`ecdsa-sha2-nistp256-cert-v01@openssh.com`).
    func testACertificate_logsInWhereOnlyItsCAIsTrusted_throughBothAgents_p256() throws {
        try certificateLogsInWhereOnlyItsCAIsTrusted_throughBothAgents(serverLogs: "ECDSA-CERT")
    }

    private func certificateLogsInWhereOnlyItsCAIsTrusted_throughBothAgents(serverLogs type: String) throws {
        let ca = fixture.stage.path + "/ca"
        _ = try fixture.checked(Spawned.run(["/usr/bin/ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", ca], environment: [:]), "CA")
        let copy = fixture.stage.path + "/certified.pub"
        try FileManager.default.copyItem(atPath: fixture.keyFile, toPath: copy)
        _ = try fixture.checked(Spawned.run(
            ["/usr/bin/ssh-keygen", "-q", "-s", ca, "-I", "pinvault-test", "-n", fixture.user.name, copy], environment: [:]
        ), "ssh-keygen -s")
        let certificate = fixture.stage.path + "/certified-cert.pub"
        chmod(certificate, 0o644)
        try "".write(toFile: fixture.authorizedKeys, atomically: true, encoding: .utf8)
        try String(contentsOfFile: ca + ".pub", encoding: .utf8).write(toFile: fixture.trustedCAKeys, atomically: true, encoding: .utf8)
        _ = try fixture.checked(fixture.pinvault(["ssh-cert", "add", fixture.user.name, certificate]), "pinvault ssh-cert add")

        try prompt.answer([fixture.pin])
        try startAgent()
        assertLoggedIn(try ssh())
        XCTAssertTrue(fixture.server.log.contains(type), "not by the certificate:\n\(fixture.server.log)")
        XCTAssertEqual(prompt.prompts.count, 1)
        assertLoggedIn(try ssh(agent: fixture.daemon.sshAgentSocketPath))

        _ = try fixture.checked(fixture.pinvault(["ssh-cert", "remove", fixture.user.name, certificate]), "pinvault ssh-cert remove")
        assertRefused(try ssh(), "the certificate was detached (per-user agent)")
        assertRefused(try ssh(agent: fixture.daemon.sshAgentSocketPath), "the certificate was detached (daemon's socket)")
    }
}
