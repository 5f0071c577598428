import Foundation
import Glibc
import PinVaultCrypto
import PinVaultSSHProtocol
import PinVaultTestKit
import XCTest

/// `pinvault agent` as ssh meets it, without ssh: a real agent process over a real
/// pinvaultd, its prompt a scripted SSH_ASKPASS. (PinVaultSSHTests drive it with ssh,
/// sshd and git.)
final class UserAgentTests: XCTestCase {
    private var fixture: AgentFixture!

    override func setUpWithError() throws {
        fixture = try AgentFixture()
    }

    override func tearDown() {
        fixture?.stop()
        fixture = nil
    }

    private func verifies(_ signature: [UInt8]?, _ data: [UInt8]? = nil) -> Bool {
        guard let signature else { return false }
        let signed = data ?? SSHAgentClient.userauthRequest(publicKey: fixture.publicKey)
        return signed.withUnsafeBytes { Ed25519.verify(signature: signature, message: $0, publicKey: fixture.publicKey) }
    }

    // MARK: Listing

    func testItLists_theUsersSSHKeys_lockedOnesToo_andNoOtherPurpose() throws {
        _ = try fixture.daemon.connect().register(user: "alice", pin: fixture.pin, label: "app", purpose: "authenticate")
        try fixture.startAgent()
        let client = try SSHAgentClient(path: fixture.agentSocket)
        try client.send(SSHAgentClient.identitiesRequest)
        let listed = try client.receiveFrame()
        XCTAssertEqual(listed[4], SSHAgentClient.identitiesAnswer)
        XCTAssertEqual(Array(listed[5..<9]), [0, 0, 0, 1], "one key: the ssh one")
        XCTAssertNotNil(listed.firstRange(of: fixture.publicKey), "it is the credential's")
        XCTAssertNotNil(listed.firstRange(of: Array("alice (ssh)".utf8)))
        XCTAssertTrue(fixture.prompts.isEmpty, "listing asked for a PIN")
    }

    // MARK: The PIN at the moment of use

    func testALockedKey_asksOnce_thenSignsWithoutAsking_untilTheTTL() throws {
        try fixture.answer([fixture.pin])
        try fixture.startAgent()
        XCTAssertTrue(verifies(try fixture.sign()), fixture.log)
        XCTAssertTrue(verifies(try fixture.sign()))
        XCTAssertEqual(fixture.prompts.count, 1, "\(fixture.prompts)")
        let prompt = try XCTUnwrap(fixture.prompts.first)
        XCTAssertTrue(prompt.contains("alice (ssh)") && prompt.contains("to log in as alice"), prompt)
        XCTAssertTrue(prompt.contains("SHA256:"), prompt)
        XCTAssertNotNil(try fixture.credential()["unlockedUntil"], "unlocked in the daemon")
    }

    func testACancelledPrompt_failsTheRequest_andCostsNoAttempt() throws {
        try fixture.answer(["cancel", fixture.pin])
        try fixture.startAgent()
        XCTAssertNil(try fixture.sign())
        XCTAssertEqual(try fixture.credential()["failedAttempts"] as? Int, 0)
        XCTAssertTrue(verifies(try fixture.sign()), "the next request asks again")
    }

    func testAWrongPin_isCounted_andTheNextPromptSaysHowManyAttemptsAreLeft() throws {
        try fixture.answer(["370591", fixture.pin])
        try fixture.startAgent()
        XCTAssertTrue(verifies(try fixture.sign()), fixture.log)
        XCTAssertEqual(fixture.prompts.count, 2)
        XCTAssertTrue(fixture.prompts[1].contains("Wrong PIN: 4 attempts left"), fixture.prompts[1])
        XCTAssertEqual(try fixture.credential()["failedAttempts"] as? Int, 0, "the right PIN cleared it")
    }

    func testThreeWrongPins_endTheRequest_andAThrottledKeyIsToldSo() throws {
        try fixture.answer(["370591", "370592", "370593", "yes"])
        try fixture.startAgent()
        XCTAssertNil(try fixture.sign())
        XCTAssertEqual(try fixture.credential()["failedAttempts"] as? Int, 3)
        XCTAssertEqual(fixture.prompts.count, 3, "\(fixture.prompts)")
        // The test daemon throttles from the third wrong PIN: the next request is told,
        // in a notice that stays up beside the request it ended.
        XCTAssertNil(try fixture.sign())
        XCTAssertTrue(fixture.waitForPrompts(4), "no notice: \(fixture.prompts)")
        let notice = try XCTUnwrap(fixture.prompts.last)
        XCTAssertTrue(notice.hasPrefix("[none]") && notice.contains("too many wrong PINs"), notice)
        XCTAssertEqual(try fixture.credential()["failedAttempts"] as? Int, 3, "a throttled key counts nothing more")
    }

    // MARK: Prompts that do not end well

    func testAPromptNobodyAnswers_isGivenUp_withoutAnAttempt_andTheAgentGoesOn() throws {
        try fixture.answer(["sleep 600", fixture.pin])
        try fixture.startAgent(settings: ["prompt_timeout_seconds = 5"])
        XCTAssertNil(try fixture.sign())
        XCTAssertEqual(try fixture.credential()["failedAttempts"] as? Int, 0)
        XCTAssertTrue(try isGone(sleepingPrompt()), "the unanswered prompt still runs")
        XCTAssertTrue(verifies(try fixture.sign()))
    }

    func testAClientThatLeavesMidPrompt_endsThePrompt_andCountsNothing() throws {
        try fixture.answer(["sleep 600", fixture.pin])
        try fixture.startAgent()
        let leaving = try SSHAgentClient(path: fixture.agentSocket)
        try leaving.send(SSHAgentClient.signRequest(publicKey: fixture.publicKey, data: SSHAgentClient.userauthRequest(publicKey: fixture.publicKey)))
        let prompt = try sleepingPrompt()
        shutdown(leaving.fd, Int32(SHUT_RDWR))
        XCTAssertTrue(isGone(prompt), "the prompt outlived the request it asked for")
        XCTAssertEqual(try fixture.credential()["failedAttempts"] as? Int, 0)
        XCTAssertTrue(verifies(try fixture.sign()), "the agent goes on")
    }

    /// ssh connections that leave in the middle of a signature leave nothing behind: no
    /// connection to pinvaultd is kept for a connection that is gone.
    func testConnectionsLeavingMidRequest_leaveNoDaemonConnectionBehind() throws {
        guard getuid() == 0 else {
            try RootOnlySuites.skip(self, "reads a non-dumpable process's /proc/PID/fd") { XCTSkip($0) }
        }
        // A locked key: each signature fails its first AgentSign and goes the full way
        // (List, the prompt), by which time its ssh has gone.
        try fixture.startAgent()
        let agent = try XCTUnwrap(fixture.agent)
        let descriptors = { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(agent.pid)/fd").count) ?? -1 }
        let before = descriptors()
        for _ in 0..<100 {
            let client = try SSHAgentClient(path: fixture.agentSocket)
            try client.roundTrip()  // its connection to pinvaultd is made
            try client.send(SSHAgentClient.signRequest(publicKey: fixture.publicKey, data: SSHAgentClient.userauthRequest(publicKey: fixture.publicKey)))
            shutdown(client.fd, Int32(SHUT_RDWR))
        }
        let deadline = Date().addingTimeInterval(60)
        while descriptors() > before && Date() < deadline { usleep(20_000) }
        XCTAssertLessThanOrEqual(descriptors(), before, "descriptors kept for connections that left")
        try SSHAgentClient(path: fixture.agentSocket).roundTrip()
        XCTAssertEqual(try fixture.credential()["failedAttempts"] as? Int, 0)
    }

    /// The pid the scripted prompt wrote when it started to sleep.
    private func sleepingPrompt() throws -> pid_t {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if let pid = fixture.prompt.sleepingPid { return pid }
            usleep(20_000)
        }
        throw TestKitError("the prompt never started: \(fixture.log)")
    }

    /// Whether `pid` is gone (or a zombie nobody reaps) within a minute.
    private func isGone(_ pid: pid_t) -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if kill(pid, 0) != 0 { return true }
            if let status = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), status.contains(") Z ") { return true }
            usleep(20_000)
        }
        return false
    }

    // MARK: The daemon restarts

    func testTheAgent_reconnectsAfterTheDaemonRestarts() throws {
        try fixture.answer([fixture.pin, fixture.pin])
        try fixture.startAgent()
        let client = try SSHAgentClient(path: fixture.agentSocket)
        XCTAssertTrue(verifies(try fixture.sign(client)))
        XCTAssertEqual(try fixture.daemon.stop(), 0)
        try fixture.daemon.start()
        // The session died with the daemon: the same connection asks again, and signs.
        XCTAssertTrue(verifies(try fixture.sign(client)), fixture.log)
        XCTAssertEqual(fixture.prompts.count, 2)
    }

    // MARK: Confirmation and forwarding

    func testAKeyToConfirm_isAskedAboutEachUse_andANoRefuses() throws {
        // "nope" typed into an askpass that shows a text field (exit 0): a no, as for
        // OpenSSH's ask_permission; "YES" is a yes.
        try fixture.answer(["yes", fixture.pin, "yes", "no", "nope", "YES"])
        try fixture.startAgent(settings: ["confirm = [\"ssh\"]"])
        XCTAssertTrue(verifies(try fixture.sign()), fixture.log)
        XCTAssertTrue(verifies(try fixture.sign()))
        XCTAssertNil(try fixture.sign(), "a no signed")
        XCTAssertNil(try fixture.sign(), "a typed no signed")
        XCTAssertTrue(verifies(try fixture.sign()), "a typed YES did not sign")
        XCTAssertEqual(fixture.prompts.map { String($0.prefix(9)) },
                       ["[confirm]", "[pin]Use ", "[confirm]", "[confirm]", "[confirm]", "[confirm]"])
        // Unlocked to confirm each use: the daemon's own socket, which cannot ask, refuses it.
        let direct = try SSHAgentClient(path: fixture.daemon.sshAgentSocketPath)
        try direct.send(SSHAgentClient.signRequest(publicKey: fixture.publicKey, data: SSHAgentClient.userauthRequest(publicKey: fixture.publicKey)))
        XCTAssertEqual(try direct.receiveFrame(), SSHAgentClient.failureReply)
    }

    /// A session-bind that says the connection was forwarded (ssh -A): nothing signed
    /// there unless the key may be used so; a direct connection beside it signs.
    func testAForwardedConnection_signsOnlyWithAKeyAllowedForForwarding() throws {
        try fixture.answer([fixture.pin])
        try fixture.startAgent()
        XCTAssertTrue(verifies(try fixture.sign()))
        let forwarded = try SSHAgentClient(path: fixture.agentSocket)
        try bind(forwarded, forwarding: true)
        XCTAssertNil(try fixture.sign(forwarded), "signed for a forwarded agent")
        XCTAssertTrue(verifies(try fixture.sign()), "a direct connection still signs")
        // pinvaultd audits the attempt: someone on the other host tried the key.
        let audited = fixture.daemon.log.split(separator: "\n").filter { $0.contains("event=sign.forwarding_refused") }
        XCTAssertEqual(audited.count, 1, fixture.daemon.log)
        XCTAssertTrue(audited.first?.contains("keyId=\(fixture.keyId)") ?? false, "\(audited)")
    }

    func testAForwardedConnection_signsWithAKeyAllowedForForwarding() throws {
        try fixture.answer([fixture.pin])
        try fixture.startAgent(settings: ["allow_forwarding = [\"alice\"]"])
        let forwarded = try SSHAgentClient(path: fixture.agentSocket)
        try bind(forwarded, forwarding: true)
        XCTAssertTrue(verifies(try fixture.sign(forwarded)), fixture.log)
        let prompt = try XCTUnwrap(fixture.prompts.first)
        XCTAssertTrue(prompt.contains("through an agent forwarded to (host key SHA256:"), prompt)
    }

    /// A binding names the host only for the login it belongs to: one replayed on another
    /// connection (a process with SSH_AUTH_SOCK that took it from ssh) cannot make the
    /// prompt name github.com for a login elsewhere.
    func testThePromptNamesAHost_onlyForALoginOfTheBoundSession() throws {
        try fixture.answer(["yes", fixture.pin, "yes"])
        try fixture.startAgent(settings: ["confirm = [\"ssh\"]"])
        let client = try SSHAgentClient(path: fixture.agentSocket)
        let session = try bind(client, forwarding: false)
        let elsewhere = SSHAgentClient.userauthRequest(publicKey: fixture.publicKey, session: Array(repeating: 9, count: 32))
        XCTAssertTrue(verifies(try fixture.sign(client, data: elsewhere), elsewhere), fixture.log)
        let bound = SSHAgentClient.userauthRequest(publicKey: fixture.publicKey, session: session)
        XCTAssertTrue(verifies(try fixture.sign(client, data: bound), bound), fixture.log)
        XCTAssertEqual(fixture.prompts.count, 3, "\(fixture.prompts)")
        XCTAssertFalse(fixture.prompts[0].contains("host key"), "a host named for another session's login: \(fixture.prompts[0])")
        XCTAssertTrue(fixture.prompts[2].contains("\non (host key SHA256:"), fixture.prompts[2])
    }

    /// session-bind@openssh.com, signed by a host key made here; its session identifier.
    @discardableResult
    private func bind(_ client: SSHAgentClient, forwarding: Bool) throws -> [UInt8] {
        let host = try SigningKeyPair(algorithm: .ed25519, seed: try KeyAlgorithm.generateSeed())
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

    // MARK: What it signs

    func testItSignsAnSSHSIG_butNotARawChallenge_evenUnlocked() throws {
        try fixture.answer([fixture.pin])
        try fixture.startAgent()
        let preimage = SSHAgentClient.sshsigPreimage()
        XCTAssertTrue(verifies(try fixture.sign(data: preimage), preimage))
        XCTAssertNil(try fixture.sign(data: Array(RandomBytes.make(count: 32))))
    }
}
