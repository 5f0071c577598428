import Foundation
import Glibc
import PinVaultCrypto
import PinVaultSSHProtocol
import PinVaultTestKit
import XCTest

/// A real pinvaultd, one `ssh` credential of the test's uid registered in it, and a real
/// `pinvault agent` in front of it, whose prompt is a `ScriptedAskpass` (or a
/// pinentry): `answer` gives its answers, `prompts` has every question it was asked.
final class AgentFixture {
    let directory: TemporaryDirectory
    let daemon: TestDaemon
    let pin = "258046"
    let keyId: String
    let publicKey: [UInt8]
    private(set) var agent: ChildProcess?
    var agentSocket: String { directory.path + "/agent/agent.sock" }
    var agentLog: String { directory.path + "/agent.log" }

    /// The `pinvault` of this build.
    static var pinvault: String {
        URL(fileURLWithPath: TestDaemon.binaryPath).deletingLastPathComponent().appendingPathComponent("pinvault").path
    }

    init(daemonOverrides: [String: [String: String]] = [:]) throws {
        directory = try TemporaryDirectory(mode: 0o700)
        daemon = try TestDaemon(overrides: daemonOverrides)
        try daemon.start()
        let credential = try daemon.connect().register(user: "alice", pin: pin, label: "ssh", purpose: "ssh")
        keyId = try XCTUnwrap(credential["keyId"] as? String)
        publicKey = [UInt8](try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(credential["publicKey"] as? String))))
        prompt = try ScriptedAskpass(directory: directory.path)
    }

    deinit {
        _ = agent?.stop(timeout: 10)
        _ = try? daemon.stop()
    }

    /// Stops the agent (SIGTERM) and the daemon; both must exit cleanly, status 0.
    func stop(file: StaticString = #filePath, line: UInt = #line) {
        if let agent, agent.isRunning {
            XCTAssertEqual(agent.stop(timeout: 10), 0, "pinvault agent did not exit cleanly:\n\(log)", file: file, line: line)
        }
        if daemon.process != nil {
            XCTAssertEqual(try daemon.stop(), 0, "pinvaultd did not exit cleanly:\n\(daemon.log)", file: file, line: line)
        }
    }

    // MARK: The prompt

    let prompt: ScriptedAskpass
    var askpass: String { prompt.path }

    /// Answers the scripted prompt gives, one per question, in order.
    func answer(_ answers: [String]) throws { try prompt.answer(answers) }

    /// The questions asked so far, each as its program got it.
    var prompts: [String] { prompt.prompts }

    /// Whether `count` questions have been asked, waiting a minute at most for them.
    func waitForPrompts(_ count: Int) -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while prompts.count < count && Date() < deadline { usleep(20_000) }
        return prompts.count >= count
    }

    /// A pinentry stand-in that answers every GETPIN with `pin` and records each
    /// description it is given (SETDESC, decoded) in `pinentryDescriptions`: where the
    /// full text of a question goes (an askpass gets the brief one).
    func recordingPinentry(pin: String) throws -> String {
        let path = directory.path + "/pinentry-recording"
        try """
            #!/usr/bin/python3
            import sys, urllib.parse
            log = open(sys.argv[0] + ".descriptions", "a")
            print("OK Pleased to meet you", flush=True)
            for line in sys.stdin:
                command = line.rstrip("\\n")
                if command.startswith("SETDESC "):
                    log.write(urllib.parse.unquote(command[8:]) + "\\x1e\\n"); log.flush()
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

    /// The descriptions the recording pinentry was given so far.
    var pinentryDescriptions: [String] {
        let text = (try? String(contentsOfFile: directory.path + "/pinentry-recording.descriptions", encoding: .utf8)) ?? ""
        return text.components(separatedBy: "\u{1e}\n").filter { !$0.isEmpty }
    }

    /// Sends `client`'s connection a `session-bind@openssh.com` signed by `host` (a key
    /// made here when nil), saying forwarded or not, and checks it was taken; its
    /// session identifier.
    @discardableResult
    static func bind(_ client: SSHAgentClient, forwarding: Bool, host: SigningKeyPair? = nil) throws -> [UInt8] {
        let host = try host ?? SigningKeyPair(algorithm: .ed25519, seed: try KeyAlgorithm.generateSeed())
        let session = RandomBytes.make(count: 32)
        let signature = try session.withUnsafeBytes { try host.sign($0) }
        let contents = SSHSessionBind(
            hostKeyBlob: SSHKey(algorithm: .ed25519, publicKey: host.publicKey).blob, sessionIdentifier: session,
            signatureBlob: (KeyAlgorithm.ed25519.sshSignatureBlob(signature) ?? []), isForwarding: forwarding
        ).encoded
        try client.send(SSHAgentClient.string([27] + SSHAgentClient.string(Array(SSHSessionBind.name.utf8)) + contents))
        XCTAssertEqual(try client.receiveFrame(), [0, 0, 0, 1, 6], "the bind was refused")
        return Array(session)
    }

    // MARK: The agent

    /// Starts `pinvault agent` on `agentSocket` with `settings` as its agent.toml
    /// (`[agent]` lines) and this environment.
    func startAgent(settings: [String] = [], environment: [String: String] = [:], arguments: [String] = []) throws {
        let config = directory.path + "/agent.toml"
        try (["[agent]"] + settings).joined(separator: "\n").appending("\n").write(toFile: config, atomically: true, encoding: .utf8)
        agent = try ChildProcess(
            path: Self.pinvault,
            arguments: ["agent", "-D", "--agent-socket", agentSocket, "--socket", daemon.socketPath, "--config", config] + arguments,
            environment: ["PATH": "/usr/bin:/bin", "HOME": directory.path, "SSH_ASKPASS": askpass].merging(environment) { $1 },
            logPath: agentLog
        )
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let client = try? SSHAgentClient(path: agentSocket, timeoutSeconds: 5) {
                _ = client
                return
            }
            guard agent?.isRunning == true else { throw TestKitError("pinvault agent exited: \(log)") }
            usleep(20_000)
        }
        throw TestKitError("pinvault agent did not listen: \(log)")
    }

    var log: String { (try? String(contentsOfFile: agentLog, encoding: .utf8)) ?? "" }

    /// A SIGN_REQUEST of a login with the credential's key to the agent, on a connection
    /// of its own (or `client`'s); the signature, or nil for SSH_AGENT_FAILURE.
    func sign(_ client: SSHAgentClient? = nil, data: [UInt8]? = nil) throws -> [UInt8]? {
        let connection = try client ?? SSHAgentClient(path: agentSocket, timeoutSeconds: 120)
        try connection.send(SSHAgentClient.signRequest(
            publicKey: publicKey, data: data ?? SSHAgentClient.userauthRequest(publicKey: publicKey)
        ))
        let reply = try connection.receiveFrame()
        guard reply.count == 4 + 1 + 4 + 83, reply[4] == SSHAgentClient.signResponse else { return nil }
        return Array(reply.suffix(64))
    }

    /// Whether `signature` is the credential's over `data` (a login, by default).
    func verifies(_ signature: [UInt8]?, _ data: [UInt8]? = nil) -> Bool {
        guard let signature else { return false }
        let signed = data ?? SSHAgentClient.userauthRequest(publicKey: publicKey)
        return signed.withUnsafeBytes { Ed25519.verify(signature: signature, message: $0, publicKey: publicKey) }
    }

    /// The credential as List reports it now.
    func credential() throws -> [String: Any] {
        try daemon.connect().credential(keyId: keyId)
    }
}
