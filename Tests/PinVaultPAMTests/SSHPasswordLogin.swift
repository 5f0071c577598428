import Foundation
import Glibc
import PinVaultTestKit

/// `ssh` run the way a person elsewhere runs it, typing one secret at every prompt:
/// SSH_ASKPASS (forced, OpenSSH 8.4+) answers each prompt from a 0600 file, never
/// from an argument, and records the prompts it was shown. No key, no agent, no
/// configuration file, no known hosts.
final class SSHPasswordLogin {
    /// How the secret reaches sshd: its password method (sshd's PAM conversation
    /// answers every hidden prompt with it) or keyboard-interactive (each PAM prompt
    /// goes to the client).
    enum Method: String {
        case password
        case keyboardInteractive = "keyboard-interactive"
    }

    struct Result: CustomStringConvertible {
        let status: Int32
        let output: String
        /// The prompts ssh showed, in order.
        let prompts: [String]
        var loggedIn: Bool { status == 0 && output.contains(SSHPasswordLogin.marker) }
        var description: String { "exit \(status), prompts \(prompts):\n\(output)" }
    }

    /// What the remote command prints once logged in.
    static let marker = "pinvault-ssh-ok"

    private let directory: TemporaryDirectory
    private let askpass: String
    private let secretPath: String
    private let promptsPath: String

    init() throws {
        directory = try TemporaryDirectory()
        askpass = directory.path + "/askpass"
        secretPath = directory.path + "/secret"
        promptsPath = directory.path + "/prompts"
        try """
            #!/bin/sh
            printf '%s\\n' "$1" >> '\(promptsPath)'
            cat '\(secretPath)'

            """.write(toFile: askpass, atomically: true, encoding: .utf8)
        guard chmod(askpass, 0o700) == 0 else { throw TestKitError("chmod \(askpass): errno \(errno)") }
    }

    /// Logs in to `server` as `user` with `secret` by `method`; from 127.0.0.1, or in a
    /// private namespace from `SSHServer.namespaceClientAddress` when `fromElsewhere`.
    func login(to server: SSHServer, user: String, secret: String, method: Method, fromElsewhere: Bool = false) throws -> Result {
        guard FileManager.default.createFile(atPath: secretPath, contents: Data((secret + "\n").utf8),
                                             attributes: [.posixPermissions: 0o600]) else {
            throw TestKitError("cannot write \(secretPath)")
        }
        unlink(promptsPath)
        var ssh = [
            "/usr/bin/ssh", "-F", "/dev/null", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
            "-o", "GlobalKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "-o", "ConnectTimeout=10",
            "-o", "PubkeyAuthentication=no", "-o", "GSSAPIAuthentication=no", "-o", "IdentityAgent=none",
            "-o", "PreferredAuthentications=\(method.rawValue)", "-o", "NumberOfPasswordPrompts=1", "-p", "\(server.port)",
        ]
        if fromElsewhere { ssh += ["-b", SSHServer.namespaceClientAddress] }
        ssh += ["\(user)@\(fromElsewhere ? SSHServer.namespaceServerAddress : "127.0.0.1")", "echo \(Self.marker)"]
        let command = server.inNetwork(ssh)
        let result = try Subprocess.run(command[0], Array(command.dropFirst()), environment: [
            "PATH": "/usr/bin:/bin", "HOME": directory.path, "LANG": "C",
            "SSH_ASKPASS": askpass, "SSH_ASKPASS_REQUIRE": "force",
        ], timeout: 60)
        let prompts = ((try? String(contentsOfFile: promptsPath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        return Result(status: result.status, output: result.standardOutput + result.standardError, prompts: prompts)
    }
}
