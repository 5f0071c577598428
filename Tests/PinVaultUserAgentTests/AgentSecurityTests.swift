import Foundation
import Glibc
import PinVaultCrypto
import PinVaultSSHProtocol
import PinVaultTestKit
import XCTest

/// What the per-user agent tells and refuses, as an attacker and a newcomer would try
/// it: wrong PINs tried elsewhere, forwarded requests, what other uids can read of a
/// prompt, a pinentry that cannot ask, `ssh-add -D`, and how a host is named.
final class AgentSecurityTests: XCTestCase {
    private var fixture: AgentFixture!

    override func setUpWithError() throws {
        fixture = try AgentFixture()
    }

    override func tearDown() {
        fixture?.stop()
        fixture = nil
    }

    private func verifies(_ signature: [UInt8]?, _ data: [UInt8]? = nil) -> Bool {
        fixture.verifies(signature, data)
    }

    @discardableResult
    private func bind(_ client: SSHAgentClient, forwarding: Bool, host: SigningKeyPair? = nil) throws -> [UInt8] {
        try AgentFixture.bind(client, forwarding: forwarding, host: host)
    }

    // MARK: Wrong PINs since the last success

    /// A wrong PIN tried elsewhere (another program's Unlock) is told after the
    /// agent's unlock, in the CLI's and PAM's words, in a notice and in the log.
    func testWrongPINsTriedElsewhere_areToldAfterTheUnlock_andLogged() throws {
        let guess = try fixture.daemon.connect().vault("Unlock", ["user": "alice", "pin": "370591", "ttlSeconds": 60])
        XCTAssertEqual(guess.error, "io.pinvault.Vault.WrongPin")
        try fixture.answer([fixture.pin])
        try fixture.startAgent()
        XCTAssertTrue(verifies(try fixture.sign()), fixture.log)
        XCTAssertTrue(fixture.log.contains("1 wrong PIN was tried since your last success"), fixture.log)
        XCTAssertTrue(fixture.waitForPrompts(2), "no notice: \(fixture.prompts)")
        XCTAssertEqual(fixture.prompts.dropFirst().first, "[none]PinVault key alice (ssh): 1 wrong PIN was tried since your last success")
    }

    /// Wrong PINs typed into the agent's own prompt are known to whoever typed them: no
    /// notice for those.
    func testWrongPINsTypedInThePrompt_areNotToldAgain() throws {
        try fixture.answer(["370591", fixture.pin])
        try fixture.startAgent()
        XCTAssertTrue(verifies(try fixture.sign()), fixture.log)
        XCTAssertFalse(fixture.log.contains("wrong PIN was tried"), fixture.log)
    }

    // MARK: Forwarded requests

    /// A forwarded request for a locked key that may not be used forwarded raises no
    /// dialog, unlocks nothing and counts nothing: root on the far host cannot make the
    /// user type a PIN.
    func testAForwardedRequest_forALockedKey_asksNothing_andUnlocksNothing() throws {
        try fixture.answer([fixture.pin])
        try fixture.startAgent(settings: ["confirm = [\"ssh\"]"])
        let forwarded = try SSHAgentClient(path: fixture.agentSocket)
        try bind(forwarded, forwarding: true)
        XCTAssertNil(try fixture.sign(forwarded), "signed for a forwarded agent")
        XCTAssertEqual(fixture.prompts, [], "a forwarded request raised a prompt")
        let credential = try fixture.credential()
        XCTAssertNil(credential["unlockedUntil"], "unlocked for a forwarded request")
        XCTAssertEqual(credential["failedAttempts"] as? Int, 0)
        XCTAssertTrue(fixture.log.contains("for a forwarded agent"), fixture.log)
    }

    /// agent.toml's allow_forwarding applies to a session another program opened: a
    /// key unlocked elsewhere to allow forwarding still signs nothing forwarded through
    /// an agent that does not allow it — and the session's own rule still holds for an
    /// agent that does.
    func testAllowForwarding_appliesWhoeverOpenedTheSession() throws {
        let opener = try fixture.daemon.connect()
        let unlocked = try opener.vault("Unlock", [
            "user": "alice", "pin": fixture.pin, "ttlSeconds": 600, "allowForwarding": true,
        ])
        XCTAssertNil(unlocked.error, "\(unlocked)")
        try fixture.startAgent()
        let forwarded = try SSHAgentClient(path: fixture.agentSocket)
        try bind(forwarded, forwarding: true)
        XCTAssertNil(try fixture.sign(forwarded), "agent.toml does not allow forwarding, yet it signed")
        XCTAssertTrue(verifies(try fixture.sign()), "a direct connection signs")
        XCTAssertEqual(fixture.prompts, [])
    }

    func testAConfirmRule_appliesToASessionOpenedElsewhere() throws {
        let unlocked = try fixture.daemon.connect().vault("Unlock", ["user": "alice", "pin": fixture.pin, "ttlSeconds": 600])
        XCTAssertNil(unlocked.error, "\(unlocked)")
        try fixture.answer(["no", "yes"])
        try fixture.startAgent(settings: ["confirm = [\"alice\"]"])
        XCTAssertNil(try fixture.sign(), "signed without the yes agent.toml asks for")
        XCTAssertTrue(verifies(try fixture.sign()), fixture.log)
        XCTAssertEqual(fixture.prompts.map { String($0.prefix(9)) }, ["[confirm]", "[confirm]"])
    }

    // MARK: What other uids can read

    /// An SSH_ASKPASS gets its question in argv (/proc/PID/cmdline, readable by every
    /// uid): the key's comment and fingerprint, as ssh gives its own askpass — not the
    /// user logged in as, nor the host. pinentry, over its pipe, gets all of it.
    func testTheAskpassArgument_namesTheKeyOnly_andPinentryGetsTheWhole() throws {
        try fixture.answer([fixture.pin])
        try fixture.startAgent()
        let client = try SSHAgentClient(path: fixture.agentSocket)
        let session = try bind(client, forwarding: false)
        let login = SSHAgentClient.userauthRequest(publicKey: fixture.publicKey, session: session)
        XCTAssertTrue(verifies(try fixture.sign(client, data: login), login), fixture.log)
        let asked = try XCTUnwrap(fixture.prompts.first)
        XCTAssertTrue(asked.hasPrefix("[pin]Use your PinVault key alice (ssh)\nSHA256:"), asked)
        XCTAssertFalse(asked.contains("log in"), asked)
        XCTAssertFalse(asked.contains("host"), asked)
        XCTAssertFalse(asked.contains(" as "), asked)

        fixture.stop()
        fixture = try AgentFixture()
        let pinentry = try fixture.recordingPinentry(pin: fixture.pin)
        try fixture.startAgent(settings: ["pinentry = \"\(pinentry)\""])
        let again = try SSHAgentClient(path: fixture.agentSocket)
        let bound = try bind(again, forwarding: false)
        let request = SSHAgentClient.userauthRequest(publicKey: fixture.publicKey, session: bound)
        XCTAssertTrue(verifies(try fixture.sign(again, data: request), request), fixture.log)
        let described = try XCTUnwrap(fixture.pinentryDescriptions.first)
        XCTAssertTrue(described.contains("to log in as alice") && described.contains("host key SHA256:"), described)
    }

    // MARK: When the agent cannot ask

    /// Debian's /usr/bin/pinentry is pinentry-curses when gnupg is installed: with no
    /// terminal it cannot ask. The agent says why in its log and asks through
    /// SSH_ASKPASS instead.
    func testAPinentryWithNoTerminal_fallsBackToSSHAskpass_andTheLogSaysWhy() throws {
        let curses = "/usr/bin/pinentry-curses"
        guard access(curses, X_OK) == 0 else { throw XCTSkip("no \(curses) (make test-deps installs pinentry-curses)") }
        try fixture.answer([fixture.pin])
        try fixture.startAgent(settings: ["pinentry = \"\(curses)\""])
        XCTAssertTrue(verifies(try fixture.sign()), fixture.log)
        XCTAssertEqual(fixture.prompts.count, 1, "SSH_ASKPASS was not asked: \(fixture.log)")
        XCTAssertTrue(fixture.log.contains("pinentry \(curses) could not ask"), fixture.log)
        XCTAssertTrue(fixture.log.contains("Inappropriate ioctl for device"), "pinentry's reason: \(fixture.log)")
    }

    /// With nothing else to ask through, the request fails, and the log says why.
    func testAPinentryWithNoTerminal_andNoAskpass_failsTheRequest_sayingWhy() throws {
        let curses = "/usr/bin/pinentry-curses"
        guard access(curses, X_OK) == 0 else { throw XCTSkip("no \(curses) (make test-deps installs pinentry-curses)") }
        guard access("/usr/bin/ssh-askpass", X_OK) != 0 else { throw XCTSkip("/usr/bin/ssh-askpass is installed") }
        try fixture.startAgent(settings: ["pinentry = \"\(curses)\""], environment: ["SSH_ASKPASS": ""])
        XCTAssertNil(try fixture.sign())
        XCTAssertTrue(fixture.log.contains("cannot ask for a PIN or a yes, so the signature is refused"), fixture.log)
        XCTAssertTrue(fixture.log.contains("Inappropriate ioctl for device"), fixture.log)
        XCTAssertEqual(try fixture.credential()["failedAttempts"] as? Int, 0)
    }

    // MARK: ssh-add -D, and names of hosts

    /// `ssh-add -D` locks every key (ssh-add says "All identities removed."); the keys
    /// stay listed, and the log says what was done.
    func testRemoveAll_locksTheKeys_andTheLogSaysTheyStayListed() throws {
        try fixture.answer([fixture.pin])
        try fixture.startAgent()
        XCTAssertTrue(verifies(try fixture.sign()))
        let client = try SSHAgentClient(path: fixture.agentSocket)
        try client.send([0, 0, 0, 1, 19])
        XCTAssertEqual(try client.receiveFrame(), [0, 0, 0, 1, 6])
        XCTAssertNil(try fixture.credential()["unlockedUntil"], "still unlocked")
        XCTAssertTrue(
            fixture.log.contains("ssh-add -D: locked 1 key (alice (ssh)); they stay listed, and their next use asks for the PIN"),
            fixture.log
        )
    }

    /// A host known_hosts names is named; one it does not is said to be unnamed, never
    /// shown as an empty name before its fingerprint.
    func testAHost_isNamedByKnownHosts_andNeverByAnEmptyName() throws {
        let pinentry = try fixture.recordingPinentry(pin: fixture.pin)
        let known = try SigningKeyPair(algorithm: .ed25519, seed: try KeyAlgorithm.generateSeed())
        let blob = SSHKey(algorithm: .ed25519, publicKey: known.publicKey).blob
        XCTAssertEqual(mkdir(fixture.directory.path + "/.ssh", 0o700), 0)
        try "build.example.org,10.0.0.7 ssh-ed25519 \(Data(blob).base64EncodedString())\n"
            .write(toFile: fixture.directory.path + "/.ssh/known_hosts", atomically: true, encoding: .utf8)
        try fixture.startAgent(settings: ["pinentry = \"\(pinentry)\"", "confirm = [\"ssh\"]"])
        let named = try SSHAgentClient(path: fixture.agentSocket)
        let session = try bind(named, forwarding: false, host: known)
        let login = SSHAgentClient.userauthRequest(publicKey: fixture.publicKey, session: session)
        XCTAssertTrue(verifies(try fixture.sign(named, data: login), login), fixture.log)
        let unnamed = try SSHAgentClient(path: fixture.agentSocket)
        let other = try bind(unnamed, forwarding: false)
        let elsewhere = SSHAgentClient.userauthRequest(publicKey: fixture.publicKey, session: other)
        XCTAssertTrue(verifies(try fixture.sign(unnamed, data: elsewhere), elsewhere), fixture.log)
        let descriptions = fixture.pinentryDescriptions
        XCTAssertTrue(descriptions.first?.contains("\non build.example.org, 10.0.0.7 (host key SHA256:") == true, "\(descriptions)")
        XCTAssertTrue(descriptions.last?.contains("\non a host not in known_hosts (host key SHA256:") == true, "\(descriptions)")
        XCTAssertFalse(descriptions.contains { $0.contains("on (host key") }, "\(descriptions)")
    }
}

/// The List the agent keeps per ssh connection: what it answers again, and what it
/// does when a key is newer than it.
final class AgentListTests: XCTestCase {
    func testAKeyRegisteredAfterTheListing_signsOnTheSameConnection() throws {
        let fixture = try AgentFixture()
        defer { fixture.stop() }
        try fixture.answer([fixture.pin, "581302"])
        try fixture.startAgent()
        let client = try SSHAgentClient(path: fixture.agentSocket)
        try client.send(SSHAgentClient.identitiesRequest)
        XCTAssertEqual(Array(try client.receiveFrame()[5..<9]), [0, 0, 0, 1])
        let newer = try fixture.daemon.connect().register(user: "alice", pin: "581302", label: "newer", purpose: "ssh")
        let publicKey = [UInt8](try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(newer["publicKey"] as? String))))
        let data = SSHAgentClient.userauthRequest(publicKey: publicKey)
        try client.send(SSHAgentClient.signRequest(publicKey: publicKey, data: data))
        let reply = try client.receiveFrame()
        XCTAssertEqual(reply[4], SSHAgentClient.signResponse, fixture.log)
        XCTAssertTrue(data.withUnsafeBytes { Ed25519.verify(signature: Array(reply.suffix(64)), message: $0, publicKey: publicKey) })
        // A new connection lists both.
        let fresh = try SSHAgentClient(path: fixture.agentSocket)
        try fresh.send(SSHAgentClient.identitiesRequest)
        XCTAssertEqual(Array(try fresh.receiveFrame()[5..<9]), [0, 0, 0, 2])
    }
}

/// The one-call way, on the agent's event loop: calls from many ssh connections follow
/// each other on its one connection to pinvaultd, and each reply reaches its own.
final class AgentLoopTests: XCTestCase {
    func testManyConnectionsAtOnce_eachGetsTheSignatureOfItsOwnData() throws {
        let fixture = try AgentFixture()
        defer { fixture.stop() }
        try fixture.answer([fixture.pin])
        try fixture.startAgent()
        XCTAssertNotNil(try fixture.sign(), fixture.log)  // unlocked
        let clients = try (0..<24).map { _ in try SSHAgentClient(path: fixture.agentSocket) }
        let requests = clients.indices.map { index in
            SSHAgentClient.userauthRequest(publicKey: fixture.publicKey, session: Array(repeating: UInt8(index), count: 32))
        }
        for (client, data) in zip(clients, requests) {
            try client.send(SSHAgentClient.signRequest(publicKey: fixture.publicKey, data: data))
        }
        for (client, data) in zip(clients, requests) {
            let reply = try client.receiveFrame()
            XCTAssertEqual(reply[4], SSHAgentClient.signResponse, fixture.log)
            XCTAssertTrue(data.withUnsafeBytes { Ed25519.verify(signature: Array(reply.suffix(64)), message: $0, publicKey: fixture.publicKey) })
        }
        XCTAssertEqual(fixture.prompts.count, 1)
    }
}
