import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// The README's "A first session", as a newcomer walks it from a checkout to a signed
/// git commit: pinvaultd as `make run` starts it (the shipped configuration, with test
/// KDF costs), an `ssh` key registered with the command line, `pinvault agent` on its
/// own socket asking through pinentry (a stand-in that answers the PIN), and git with
/// `gpg.format ssh` and the key's line as `user.signingkey`, signing through the agent;
/// `git verify-commit` and `git log --show-signature` then verify the commit.
final class NewcomerPathTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var daemon: TestDaemon!
    private var agent: ChildProcess?
    private let pin = "258046"

    override func setUpWithError() throws {
        for program in ["/usr/bin/git", "/usr/bin/ssh-keygen", "/usr/bin/ssh-add"] where access(program, X_OK) != 0 {
            throw XCTSkip("no \(program) (make test-deps installs openssh-client; git comes with the checkout)")
        }
        directory = try TemporaryDirectory(mode: 0o700)
        daemon = try TestDaemon()
        try daemon.start()
    }

    override func tearDownWithError() throws {
        if let agent { XCTAssertEqual(agent.stop(timeout: 10), 0, "pinvault agent did not exit cleanly:\n\(agentLog)") }
        agent = nil
        if let daemon, daemon.process != nil { XCTAssertEqual(try daemon.stop(), 0, daemon.log) }
        daemon = nil
        directory = nil
    }

    private var home: String { directory.path + "/home" }
    private var agentSocket: String { directory.path + "/agent.sock" }
    private var agentLog: String { (try? String(contentsOfFile: directory.path + "/agent.log", encoding: .utf8)) ?? "" }
    private var pinentryLog: String { (try? String(contentsOfFile: directory.path + "/pinentry.log", encoding: .utf8)) ?? "" }

    /// What the newcomer's shell has: a home, the daemon's socket, the agent's.
    private var environment: [String: String] {
        [
            "PATH": "/usr/bin:/bin", "HOME": home, "PINVAULT_SOCKET": daemon.socketPath, "SSH_AUTH_SOCK": agentSocket,
            "GIT_CONFIG_NOSYSTEM": "1", "LANG": "C.UTF-8",
        ]
    }

    private func run(_ program: String, _ arguments: [String], input: String = "") throws -> Subprocess.Result {
        try Subprocess.run(program, arguments, input: Data(input.utf8), environment: environment, timeout: 60)
    }

    private func pinvault(_ arguments: [String], input: String = "") throws -> Subprocess.Result {
        try run(AgentFixture.pinvault, arguments, input: input)
    }

    /// pinentry's part in Assuan: greets, says OK to each command, and to GETPIN gives
    /// the PIN; every command goes to pinentry.log.
    private func writePinentry() throws -> String {
        let path = directory.path + "/pinentry"
        try """
            #!/usr/bin/python3
            import sys
            log = open(sys.argv[0] + ".log", "a")
            print("OK Pleased to meet you", flush=True)
            for line in sys.stdin:
                command = line.rstrip("\\n")
                log.write(command + "\\n"); log.flush()
                if command == "GETPIN":
                    print("D \(pin)", flush=True)
                if command == "BYE":
                    print("OK closing connection", flush=True)
                    break
                print("OK", flush=True)

            """.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    func testTheReadmesFirstSession_endsInASignedCommitThatGitVerifies() throws {
        XCTAssertEqual(mkdir(home, 0o700), 0)

        // $ pinvault register $USER --label ssh --purpose ssh (the PIN typed twice; here once, on stdin)
        let registered = try pinvault(["register", "alice", "--label", "ssh", "--purpose", "ssh", "--pin-stdin"], input: pin + "\n")
        XCTAssertEqual(registered.status, 0, registered.description)
        let keyLine = try pinvault(["ssh-key", "alice"])
        XCTAssertEqual(keyLine.status, 0, keyLine.description)
        let line = keyLine.standardOutput.trimmingCharacters(in: .newlines)
        XCTAssertTrue(line.hasPrefix("ssh-ed25519 "), line)

        // $ pinvault agent -D --agent-socket $PWD/run/agent.sock (in a third terminal)
        let settings = directory.path + "/agent.toml"
        try "[agent]\npinentry = \"\(try writePinentry())\"\n".write(toFile: settings, atomically: true, encoding: .utf8)
        agent = try ChildProcess(
            path: AgentFixture.pinvault,
            arguments: ["agent", "-D", "--agent-socket", agentSocket, "--config", settings],
            environment: environment.merging(["TERM": "xterm"]) { $1 }, logPath: directory.path + "/agent.log"
        )
        var listed = try run("/usr/bin/ssh-add", ["-l"])
        let deadline = Date().addingTimeInterval(30)
        while listed.status != 0 && Date() < deadline && agent?.isRunning == true {
            usleep(50_000)
            listed = try run("/usr/bin/ssh-add", ["-l"])
        }
        // $ ssh-add -l: the key, locked, with its comment.
        XCTAssertEqual(listed.status, 0, "\(listed)\n\(agentLog)")
        XCTAssertTrue(listed.standardOutput.contains("alice (ssh) (ED25519)"), listed.standardOutput)

        // $ git config gpg.format ssh; user.signingkey "key::…"; allowed signers; git commit -S
        let repository = home + "/project"
        let git = { (arguments: [String]) throws -> Subprocess.Result in try self.run("/usr/bin/git", ["-C", repository] + arguments) }
        XCTAssertEqual(try run("/usr/bin/git", ["init", "-q", repository]).status, 0)
        let allowedSigners = home + "/allowed_signers"
        try "alice@example.org \(line)\n".write(toFile: allowedSigners, atomically: true, encoding: .utf8)
        for (key, value) in [
            ("user.name", "Alice"), ("user.email", "alice@example.org"), ("gpg.format", "ssh"),
            ("user.signingkey", "key::" + line), ("gpg.ssh.allowedSignersFile", allowedSigners),
        ] {
            XCTAssertEqual(try git(["config", key, value]).status, 0, key)
        }
        let committed = try git(["commit", "-q", "-S", "--allow-empty", "-m", "signed through PinVault"])
        XCTAssertEqual(committed.status, 0, "git commit -S: \(committed)\nagent:\n\(agentLog)\npinentry:\n\(pinentryLog)")
        XCTAssertEqual(pinentryLog.components(separatedBy: "GETPIN").count - 1, 1, "pinentry asked once:\n\(pinentryLog)")

        // $ git verify-commit HEAD; git log --show-signature -1
        let verified = try git(["verify-commit", "HEAD"])
        XCTAssertEqual(verified.status, 0, verified.description)
        let shown = try git(["log", "--show-signature", "-1"])
        XCTAssertEqual(shown.status, 0, shown.description)
        XCTAssertTrue(shown.standardOutput.contains("Good \"git\" signature for alice@example.org with ED25519 key"), shown.description)

        // The key stays unlocked for the agent's 15 minutes: a second commit asks nothing.
        XCTAssertEqual(try git(["commit", "-q", "-S", "--allow-empty", "-m", "again"]).status, 0)
        XCTAssertEqual(pinentryLog.components(separatedBy: "GETPIN").count - 1, 1, "asked again:\n\(pinentryLog)")
    }

    /// The README shows this very path: the commands the test runs are the ones it prints.
    func testTheReadme_showsThisPath_besideMakeRun() throws {
        let readme = try String(contentsOfFile: TestDaemon.repositoryRoot + "/README.md", encoding: .utf8)
        let session = try XCTUnwrap(readme.range(of: "## A first session").map { readme[$0.upperBound...] })
        let section = String(session[..<(session.range(of: "\n## ")?.lowerBound ?? session.endIndex)])
        for command in [
            "$ pinvault register $USER --label ssh --purpose ssh", "$ pinvault agent -D --agent-socket $PWD/run/agent.sock",
            "$ export SSH_AUTH_SOCK=$PWD/run/agent.sock", "$ ssh-add -l", "$ git config gpg.format ssh",
            "$ git config user.signingkey \"key::$(pinvault ssh-key $USER)\"", "$ git config gpg.ssh.allowedSignersFile",
            "$ git commit -S", "$ git log --show-signature -1",
        ] {
            XCTAssertTrue(section.contains(command), "README's \"A first session\" lacks \(command)")
        }
    }
}
