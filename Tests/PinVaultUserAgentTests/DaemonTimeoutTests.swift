import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// A pinvaultd that takes the agent's calls and stops answering must not hang ssh: a
/// real `pinvault agent` in front of a fake daemon that accepts and never answers.
final class DaemonTimeoutTests: XCTestCase {
    func testADaemonThatNeverAnswers_failsTheRequest_dropsTheConnection_andTheNextRequestConnectsAnew() throws {
        let silent = try ScriptedVarlinkServer { _ in .silence }
        defer { silent.stop() }
        let directory = try TemporaryDirectory(mode: 0o700)
        let socket = directory.path + "/agent/agent.sock"
        let config = directory.path + "/agent.toml"
        let log = directory.path + "/agent.log"
        // Short, so that the test is quick; what it asserts is the outcome, not the time.
        try "[agent]\ndaemon_timeout_seconds = 1\n".write(toFile: config, atomically: true, encoding: .utf8)
        let agent = try ChildProcess(
            path: AgentFixture.pinvault,
            arguments: ["agent", "-D", "--agent-socket", socket, "--socket", silent.socketPath, "--config", config],
            environment: ["PATH": "/usr/bin:/bin", "HOME": directory.path], logPath: log
        )
        defer { _ = agent.stop(timeout: 10) }
        let agentLog = { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
        let client = try connect(to: socket, agent, agentLog)

        // ssh's first request: the agent's List is never answered, and ssh hears
        // SSH_AGENT_FAILURE instead of waiting for ever.
        try client.send(SSHAgentClient.identitiesRequest)
        XCTAssertEqual(try client.receiveFrame(), SSHAgentClient.failureReply, agentLog())
        XCTAssertEqual(silent.received.count, 1)
        XCTAssertTrue(silent.waitFor(timeout: 60) { silent.clientHungUp }, "the agent kept the connection pinvaultd left unanswered")
        XCTAssertTrue(agentLog().contains("did not answer a call within 1 s (daemon_timeout_seconds"), agentLog())

        // The next request is a call on a new connection: the fake daemon serves one
        // connection at a time, so a second call reaches it only on a connection made
        // after the first was closed.
        try client.send(SSHAgentClient.identitiesRequest)
        XCTAssertEqual(try client.receiveFrame(), SSHAgentClient.failureReply, agentLog())
        XCTAssertTrue(silent.waitFor(timeout: 60) { silent.received.count == 2 }, "no second call: \(agentLog())")
        XCTAssertTrue(agent.isRunning)
        XCTAssertEqual(agent.stop(timeout: 10), 0, agentLog())
    }

    /// A connection to the agent once it listens.
    private func connect(to socket: String, _ agent: ChildProcess, _ log: () -> String) throws -> SSHAgentClient {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let client = try? SSHAgentClient(path: socket, timeoutSeconds: 120) { return client }
            guard agent.isRunning else { throw TestKitError("pinvault agent exited: \(log())") }
            usleep(20_000)
        }
        throw TestKitError("pinvault agent did not listen: \(log())")
    }
}
