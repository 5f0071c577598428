import Glibc

/// A release `pinvaultd` on a private socket and state directory, with the production
/// configuration file (`config/pinvaultd.toml`) and only `--socket`, `--ssh-agent-socket`
/// and `--state-directory` pointing into a scratch directory. Its stderr goes to `daemon.log` there.
final class DaemonInstance {
    let daemonPath: String
    let configPath: String
    let scratch: ScratchDirectory
    let socketPath: String
    /// The daemon's ssh-agent socket (`--ssh-agent-socket`).
    let agentSocketPath: String
    let stateDirectory: String
    let logPath: String
    private(set) var child: ChildProcess?

    /// A daemon not yet started; its state directory is made (0700) at once, so that a
    /// store can be filled before the first start.
    init(daemonPath: String, configPath: String) throws {
        self.daemonPath = daemonPath
        self.configPath = configPath
        scratch = try ScratchDirectory(prefix: "pinvault-bench")
        socketPath = scratch.file("io.pinvault.Vault")
        agentSocketPath = scratch.file("ssh-agent.sock")
        stateDirectory = scratch.file("state")
        logPath = scratch.file("daemon.log")
        guard mkdir(stateDirectory, 0o700) == 0 else { throw BenchError.system("mkdir \(stateDirectory)") }
    }

    deinit {
        child?.stop(timeoutSeconds: 10)
    }

    var pid: pid_t? { child?.pid }

    private var daemonArguments: [String] {
        ["--config", configPath, "--socket", socketPath, "--ssh-agent-socket", agentSocketPath, "--state-directory", stateDirectory]
    }

    private static let environment = ["PATH=/usr/local/bin:/usr/bin:/bin"]

    /// Starts the daemon and waits for its first answered GetPolicy; returns the seconds
    /// from just before `posix_spawn` to that answer.
    @discardableResult
    func start() throws -> Double {
        guard child == nil else { throw BenchError("pinvaultd already runs") }
        unlink(socketPath)
        let begin = Monotonic.now()
        child = try ChildProcess(
            path: daemonPath, arguments: daemonArguments, environment: Self.environment, logPath: logPath)
        try waitForFirstAnswer()
        return Monotonic.seconds(since: begin)
    }

    /// Starts `systemd-socket-activate -l SOCKET pinvaultd …`, waits until it listens,
    /// then returns the seconds from the first accepted connect (which makes it exec the
    /// daemon) to the answered GetPolicy.
    @discardableResult
    func startActivated(activatorPath: String) throws -> Double {
        guard child == nil else { throw BenchError("pinvaultd already runs") }
        unlink(socketPath)
        child = try ChildProcess(
            path: activatorPath, arguments: ["-l", socketPath, daemonPath] + daemonArguments,
            environment: Self.environment, logPath: logPath)
        let deadline = Monotonic.now() + 20_000_000_000
        var status = stat()
        while stat(socketPath, &status) != 0 {
            guard child?.isRunning == true else { throw BenchError("systemd-socket-activate exited; see \(logPath)") }
            guard Monotonic.now() < deadline else { throw BenchError("systemd-socket-activate did not listen") }
            usleep(500)
        }
        // The socket file appears at bind(), before listen(): a refused connect means
        // "not yet", and the clock starts at the connect that is accepted.
        while true {
            let begin = Monotonic.now()
            let connection: VarlinkConnection
            do {
                connection = try VarlinkConnection(path: socketPath)
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
                let connection = try VarlinkConnection(path: socketPath)
                try connection.roundTrip(VaultCalls.getPolicy)
                return
            } catch {
                guard child?.isRunning == true else {
                    throw BenchError("pinvaultd exited with \(child?.exitStatus ?? -1); see \(logPath)")
                }
                guard Monotonic.now() < deadline else { throw BenchError("pinvaultd did not answer: \(error)") }
                usleep(200)
            }
        }
    }

    /// SIGTERM, then waits for a clean exit.
    func stop() throws {
        guard let child else { return }
        self.child = nil
        let status = child.stop(timeoutSeconds: 30)
        guard status == 0 else { throw BenchError("pinvaultd stopped with status \(status.map(String.init) ?? "none"); see \(logPath)") }
    }

    /// A new connection to the daemon.
    func connect() throws -> VarlinkConnection {
        try VarlinkConnection(path: socketPath)
    }

    /// The daemon's memory, from `/proc/PID/status`.
    func memory() throws -> ProcessMemory {
        guard let pid else { throw BenchError("pinvaultd is not running") }
        return try ProcessMemory(pid: pid)
    }

    /// Registers a credential for `user` at the configured KDF parameters; its key id.
    func register(user: String, label: String? = nil) throws -> String {
        let connection = try connect()
        return try connection.call(VaultCalls.register(user: user, label: label)) {
            try VaultCalls.keyId(fromRegisterReply: $0)
        }
    }
}
