import Glibc
import PinVaultTestKit

/// A release `pinvaultd` on a private socket and state directory, with the production
/// configuration file (`config/pinvaultd.toml`) as it is and only `--socket`,
/// `--ssh-agent-socket` and `--state-directory` pointing into a scratch directory, its
/// output in `daemon.log` there: TestKit's `TestDaemon`, with the two starts the
/// benchmark times.
final class DaemonInstance {
    let daemon: TestDaemon

    /// A daemon not yet started; its state directory is made (0700) at once, so that a
    /// store can be filled before the first start.
    init(daemonPath: String, configPath: String) throws {
        daemon = try TestDaemon(
            configFile: configPath, binary: daemonPath, makeDirectories: true, logLevel: nil,
            environment: ["PATH": "/usr/local/bin:/usr/bin:/bin"])
    }

    deinit {
        try? daemon.stop(timeout: 10)
    }

    var socketPath: String { daemon.socketPath }
    /// The daemon's ssh-agent socket (`--ssh-agent-socket`).
    var agentSocketPath: String { daemon.sshAgentSocketPath }
    var stateDirectory: String { daemon.stateDirectory }
    var logPath: String { daemon.logPath }
    var pid: pid_t? { daemon.pid }

    /// Starts the daemon and waits for its first answered GetPolicy; returns the seconds
    /// from just before `posix_spawn` to that answer.
    @discardableResult
    func start() throws -> Double {
        unlink(socketPath)
        let begin = Monotonic.now()
        try daemon.start(waitForSocket: false)
        try waitForFirstAnswer()
        return Monotonic.seconds(since: begin)
    }

    /// Starts `systemd-socket-activate -l SOCKET pinvaultd …`, waits until it listens,
    /// then returns the seconds from the first accepted connect (which makes it exec the
    /// daemon) to the answered GetPolicy.
    @discardableResult
    func startActivated(activatorPath: String) throws -> Double {
        unlink(socketPath)
        try daemon.start(launcher: (activatorPath, ["-l", socketPath]), waitForSocket: false)
        let deadline = Monotonic.now() + 20_000_000_000
        var status = stat()
        while stat(socketPath, &status) != 0 {
            guard daemon.process?.isRunning == true else { throw BenchError("systemd-socket-activate exited; see \(logPath)") }
            guard Monotonic.now() < deadline else { throw BenchError("systemd-socket-activate did not listen") }
            usleep(500)
        }
        // The socket file appears at bind(), before listen(): a refused connect means
        // "not yet", and the clock starts at the connect that is accepted.
        while true {
            let begin = Monotonic.now()
            let connection: VarlinkClient
            do {
                connection = try connect()
            } catch {
                guard Monotonic.now() < deadline else { throw error }
                usleep(200)
                continue
            }
            try connection.roundTrip(VaultCalls.getPolicy)
            return Monotonic.seconds(since: begin)
        }
    }

    /// Polls the socket until a GetPolicy is answered (20 s at most).
    private func waitForFirstAnswer() throws {
        let deadline = Monotonic.now() + 20_000_000_000
        while true {
            do {
                try connect().roundTrip(VaultCalls.getPolicy)
                return
            } catch {
                guard daemon.process?.isRunning == true else {
                    throw BenchError("pinvaultd exited with \(daemon.process?.exitStatus ?? -1); see \(logPath)")
                }
                guard Monotonic.now() < deadline else { throw BenchError("pinvaultd did not answer: \(error)") }
                usleep(200)
            }
        }
    }

    /// SIGTERM, then waits for a clean exit.
    func stop() throws {
        guard daemon.process != nil else { return }
        let status = try daemon.stop(timeout: 30)
        guard status == 0 else { throw BenchError("pinvaultd stopped with status \(status); see \(logPath)") }
    }

    /// A new connection to the daemon, whose replies may wait up to 120 s (a KDF queue).
    func connect() throws -> VarlinkClient {
        try VarlinkClient(socketPath: socketPath, timeoutSeconds: 120)
    }

    /// The daemon's memory, from `/proc/PID/status`.
    func memory() throws -> ProcessMemory {
        try daemon.memory()
    }

    /// Registers a credential for `user` at the configured KDF parameters (of `purpose`
    /// and `algorithm`, or the daemon's defaults); its key id.
    func register(user: String, label: String? = nil, purpose: String? = nil, algorithm: String? = nil) throws -> String {
        try connect().call(VaultCalls.register(user: user, label: label, purpose: purpose, algorithm: algorithm)) {
            try VaultCalls.keyId(fromRegisterReply: $0)
        }
    }
}
