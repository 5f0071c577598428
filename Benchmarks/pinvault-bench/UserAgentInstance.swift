import Glibc
import PinVaultTestKit

/// `pinvault agent`, the per-user agent, in front of the benchmark's pinvaultd: the
/// `pinvault` built beside the daemon, serving a socket of its own, for the bench's own
/// uid. It holds no key; each SIGN_REQUEST becomes a Varlink `AgentSign` to pinvaultd.
final class UserAgentInstance {
    let scratch: TemporaryDirectory
    let socketPath: String
    private var child: ChildProcess?

    init(pinvault: String, daemonSocket: String) throws {
        scratch = try TemporaryDirectory()
        socketPath = scratch.path + "/agent.sock"
        let log = scratch.path + "/agent.log"
        let agent = try ChildProcess(
            path: pinvault,
            arguments: ["agent", "-D", "--agent-socket", socketPath, "--socket", daemonSocket, "--config", scratch.path + "/agent.toml"],
            environment: ["PATH": "/usr/bin:/bin", "HOME": scratch.path], logPath: log)
        child = agent
        let deadline = Monotonic.now() + 10_000_000_000
        var status = stat()
        while stat(socketPath, &status) != 0 {
            guard agent.isRunning, Monotonic.now() < deadline else { throw BenchError("pinvault agent did not start; see \(log)") }
            usleep(1_000)
        }
    }

    /// The agent's process id (0 once stopped).
    var pid: pid_t { child?.pid ?? 0 }

    deinit {
        child?.stop(timeout: 5)
    }

    func connect() throws -> SSHAgentClient {
        try SSHAgentClient(path: socketPath, timeoutSeconds: 120)
    }
}
