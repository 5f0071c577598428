import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// Everything an OpenSSH test needs, made fresh for each test: a throw-away user, a
/// world-readable staging directory (the repository may sit under a 0700 home, out of
/// that user's reach) holding a copy of `pinvault`, pinvaultd with its agent socket,
/// one `ssh` credential of the user registered through the CLI as that user, and sshd
/// on 127.0.0.1 that lets the user in with that credential's key (`pinvault ssh-key`).
/// ssh, ssh-add and ssh-keygen run as the user, through setpriv.
final class OpenSSHFixture {
    let stage: TemporaryDirectory
    let user: SSHTestUser
    let daemon: TestDaemon
    let server: SSHServer
    let pinvault: String
    /// The credential's OpenSSH key line, as `pinvault ssh-key` printed it.
    let keyLine: String
    /// A file holding `keyLine`, readable by the user.
    let keyFile: String
    /// The file sshd reads the user's keys from, holding `keyLine` (`authorize` adds more).
    let authorizedKeys: String
    /// sshd's TrustedUserCAKeys: empty, so no CA is trusted until a test writes one.
    let trustedCAKeys: String
    let pin = "258046"
    let newPin = "370591"

    /// Skips `testCase` (loudly: `RootOnlySuites`) unless run as root with sshd
    /// installed; under `CI=true` that fails instead: CI runs as root with `make
    /// test-deps`, which installs openssh-server.
    static func requirements(of testCase: XCTestCase) throws {
        guard getuid() == 0 else {
            try RootOnlySuites.skip(testCase, "needs root: it adds a user and runs sshd") { XCTSkip($0) }
        }
        guard access(SSHServer.binary, X_OK) == 0 else {
            try RootOnlySuites.skip(testCase, "no \(SSHServer.binary) (make test-deps installs openssh-server)") { XCTSkip($0) }
        }
    }

    /// The algorithm of the credential (`pinvault register --algorithm`).
    let algorithm: String

    /// The algorithm a test runs with: P-256 for a test whose name ends in `_p256` (the
    /// same test body as its Ed25519 twin), else Ed25519.
    static func algorithm(of testCase: XCTestCase) -> String {
        testCase.name.contains("_p256") ? "p256" : "ed25519"
    }

    /// `serverSettings`: `sshd_config` keywords beside `AuthorizedKeysFile`.
    init(
        algorithm: String = "ed25519", daemonOverrides: [String: [String: String]] = [:], serverSettings: [String: String] = [:]
    ) throws {
        self.algorithm = algorithm
        stage = try TemporaryDirectory(mode: 0o755)
        user = try SSHTestUser(home: stage.path + "/home")
        pinvault = stage.path + "/pinvault"
        let built = (TestDaemon.binaryPath as NSString).deletingLastPathComponent + "/pinvault"
        try FileManager.default.copyItem(atPath: built, toPath: pinvault)
        chmod(pinvault, 0o755)

        daemon = try TestDaemon(overrides: daemonOverrides)
        try daemon.start()

        let registered = try Self.checked(user.run(
            [pinvault, "register", user.name, "--label", "ssh", "--purpose", "ssh", "--algorithm", algorithm, "--pin-stdin"],
            environment: Self.environment(daemon), input: pin + "\n"
        ), "pinvault register")
        _ = registered
        keyLine = try Self.checked(
            user.run([pinvault, "ssh-key", user.name], environment: Self.environment(daemon)), "pinvault ssh-key"
        ).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        keyFile = stage.path + "/key.pub"
        try (keyLine + "\n").write(toFile: keyFile, atomically: true, encoding: .utf8)
        authorizedKeys = stage.path + "/authorized_keys"
        try (keyLine + "\n").write(toFile: authorizedKeys, atomically: true, encoding: .utf8)
        trustedCAKeys = stage.path + "/trusted_user_ca_keys"
        try "".write(toFile: trustedCAKeys, atomically: true, encoding: .utf8)
        for file in [keyFile, authorizedKeys, trustedCAKeys] { chmod(file, 0o644) }
        server = try SSHServer(
            directory: stage.path, allowUsers: user.name,
            settings: ["AuthorizedKeysFile": authorizedKeys, "TrustedUserCAKeys": trustedCAKeys].merging(serverSettings) { $1 }
        )
    }

    static func environment(_ daemon: TestDaemon) -> [String: String] {
        ["SSH_AUTH_SOCK": daemon.sshAgentSocketPath, "PINVAULT_SOCKET": daemon.socketPath]
    }

    var environment: [String: String] { Self.environment(daemon) }

    /// Lets the user in with each of `keyLines` too (sshd reads the file at each login).
    func authorize(_ keyLines: [String]) throws {
        try ([keyLine] + keyLines).map { $0 + "\n" }.joined().write(toFile: authorizedKeys, atomically: true, encoding: .utf8)
        chmod(authorizedKeys, 0o644)
    }

    static func checked(_ result: RunResult, _ what: String) throws -> RunResult {
        guard result.status == 0 else { throw TestKitError("\(what) failed: \(result)") }
        return result
    }

    // MARK: As the user

    func pinvault(_ arguments: [String], input: String = "") throws -> RunResult {
        try user.run([pinvault] + arguments, environment: environment, input: input)
    }

    func unlock(ttl: String = "5m") throws -> RunResult {
        try checked(pinvault(["unlock", user.name, "--ttl", ttl, "--pin-stdin"], input: pin + "\n"), "pinvault unlock")
    }

    func checked(_ result: RunResult, _ what: String) throws -> RunResult {
        try Self.checked(result, what)
    }

    /// `ssh-add -l` as the user.
    func sshAddList() throws -> RunResult {
        try user.run(["/usr/bin/ssh-add", "-l"], environment: environment)
    }

    /// `ssh -o BatchMode=yes` to the test's sshd as the user, running `command`: no
    /// configuration file, no known hosts, no password or keyboard prompts, keys from
    /// the agent only.
    func ssh(_ command: String, agent: String? = nil, options: [String] = []) throws -> RunResult {
        try user.run(
            sshCommand(command, options: options),
            environment: environment.merging(agent.map { ["SSH_AUTH_SOCK": $0] } ?? [:]) { $1 }
        )
    }

    /// The argv of that `ssh`, with `options` before the destination.
    func sshCommand(_ command: String, options: [String] = []) -> [String] {
        [
            "/usr/bin/ssh", "-F", "/dev/null", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no",
            "-o", "UserKnownHostsFile=/dev/null", "-o", "GlobalKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
            "-o", "ConnectTimeout=10", "-o", "PasswordAuthentication=no", "-o", "KbdInteractiveAuthentication=no",
        ] + options + ["-p", "\(server.port)", "\(user.name)@127.0.0.1", command]
    }

    /// `ssh-keygen -Y sign` of a file in the user's home (the agent signs), then
    /// `ssh-keygen -Y verify` against an allowed_signers file: whether it verified.
    func signAndVerify(
        _ text: String, agent: String? = nil, keyFile: String? = nil, keyLine: String? = nil
    ) throws -> (signed: RunResult, verified: RunResult?) {
        let keyFile = keyFile ?? self.keyFile
        let keyLine = keyLine ?? self.keyLine
        let message = user.home + "/message.txt"
        try text.write(toFile: message, atomically: true, encoding: .utf8)
        chown(message, user.uid, user.gid)
        unlink(message + ".sig")
        let signed = try user.run(
            ["/usr/bin/ssh-keygen", "-Y", "sign", "-f", keyFile, "-n", "git", message],
            environment: environment.merging(agent.map { ["SSH_AUTH_SOCK": $0] } ?? [:]) { $1 }
        )
        guard signed.status == 0 else { return (signed, nil) }
        let allowed = stage.path + "/allowed_signers"
        try "\(user.name) \(keyLine)\n".write(toFile: allowed, atomically: true, encoding: .utf8)
        let verified = try Spawned.run(
            ["/usr/bin/ssh-keygen", "-Y", "verify", "-f", allowed, "-I", user.name, "-n", "git", "-s", message + ".sig"],
            environment: ["PATH": "/usr/bin:/bin"], input: text
        )
        return (signed, verified)
    }

    /// `git commit -S` (gpg.format ssh, the key's line as user.signingkey) in a fresh
    /// repository of the user, through `agent`, then `git verify-commit` against an
    /// allowed signers file; the verification when the commit was made.
    func gitCommitSigned(agent: String? = nil) throws -> (committed: RunResult, verified: RunResult?) {
        let repository = user.home + "/repository-\(UInt32.random(in: 0...UInt32.max))"
        let environment = environment.merging(agent.map { ["SSH_AUTH_SOCK": $0] } ?? [:]) { $1 }
        let git = { (arguments: [String]) throws -> RunResult in
            try self.user.run(["/usr/bin/git", "-C", repository] + arguments, environment: environment)
        }
        let allowed = stage.path + "/git_allowed_signers"
        try "\(user.name)@example.org \(keyLine)\n".write(toFile: allowed, atomically: true, encoding: .utf8)
        chmod(allowed, 0o644)
        _ = try checked(user.run(["/usr/bin/git", "init", "-q", repository], environment: environment), "git init")
        for (key, value) in [
            ("user.name", "PinVault Test"), ("user.email", "\(user.name)@example.org"), ("gpg.format", "ssh"),
            ("user.signingkey", keyFile), ("gpg.ssh.allowedSignersFile", allowed), ("commit.gpgsign", "true"),
        ] {
            _ = try checked(git(["config", key, value]), "git config \(key)")
        }
        let committed = try git(["commit", "-q", "--allow-empty", "-m", "signed by a PinVault ssh key"])
        guard committed.status == 0 else { return (committed, nil) }
        return (committed, try git(["verify-commit", "-v", "HEAD"]))
    }

    /// The SHA256 fingerprint `ssh-keygen -lf` gives for the key line.
    func fingerprint() throws -> String {
        let listed = try checked(Spawned.run(["/usr/bin/ssh-keygen", "-lf", keyFile], environment: [:]), "ssh-keygen -lf")
        return String(listed.standardOutput.split(separator: " ").dropFirst().first ?? "")
    }

    /// Everything that works with an unlocked key fails: the agent lists nothing, ssh
    /// is refused, and ssh-keygen cannot sign.
    func assertAllFails(_ why: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let listed = try sshAddList()
        XCTAssertEqual(listed.status, 1, "\(why): ssh-add -l listed \(listed)", file: file, line: line)
        XCTAssertTrue(listed.standardOutput.contains("no identities"), "\(why): \(listed)", file: file, line: line)
        let login = try ssh("echo pinvault-ssh-ok")
        XCTAssertNotEqual(login.status, 0, "\(why): ssh logged in: \(login)", file: file, line: line)
        XCTAssertFalse(login.standardOutput.contains("pinvault-ssh-ok"), file: file, line: line)
        XCTAssertNotEqual(try signAndVerify("\(why)\n").signed.status, 0, "\(why): ssh-keygen -Y sign signed", file: file, line: line)
    }

    /// The unlocked key works: listed with its fingerprint, ssh logs in and runs a
    /// command, and a git-style signature verifies.
    func assertAllWorks(file: StaticString = #filePath, line: UInt = #line) throws {
        for failure in try failuresOfAllWorks() {
            XCTFail(failure, file: file, line: line)
        }
    }

    /// What of `assertAllWorks` does not work, each with what it saw; empty when all does.
    func failuresOfAllWorks() throws -> [String] {
        var failures: [String] = []
        let listed = try sshAddList()
        let fingerprint = try fingerprint()
        if listed.status != 0 || !listed.standardOutput.contains(fingerprint)
            || !listed.standardOutput.contains("\(user.name) (ssh)") {
            failures.append("ssh-add -l does not list the key: \(listed)")
        }
        let login = try ssh("echo pinvault-ssh-ok; id -un")
        if login.status != 0 || login.standardOutput != "pinvault-ssh-ok\n\(user.name)\n" {
            failures.append("ssh: \(login)\nsshd:\n\(server.log)")
        }
        let (signed, verified) = try signAndVerify("commit 1\n")
        if signed.status != 0 {
            failures.append("ssh-keygen -Y sign: \(signed)")
        } else if verified?.status != 0 || verified?.standardOutput.contains("Good \"git\" signature for \(user.name)") != true {
            failures.append("ssh-keygen -Y verify: \(String(describing: verified))")
        }
        return failures
    }
}
