import Glibc

/// A process this benchmark started with `posix_spawn`: stdin from /dev/null, stdout and
/// stderr appended to a log file. Killed (SIGKILL) and reaped on release if still running.
final class ChildProcess {
    let pid: pid_t
    let path: String
    private(set) var exitStatus: Int32?

    /// Starts `path` with `arguments` (argv[1...]) and exactly `environment`.
    init(path: String, arguments: [String], environment: [String], logPath: String) throws {
        self.path = path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var child: pid_t = 0
        let result = posix_spawn(&child, path, &actions, nil, argv, envp)
        guard result == 0 else { throw BenchError.system("posix_spawn \(path)", result) }
        pid = child
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            _ = waitForExit(timeoutSeconds: 10)
        }
    }

    /// True while the process has not exited (reaps it when it has).
    var isRunning: Bool {
        guard exitStatus == nil else { return false }
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == pid {
            exitStatus = Self.decode(status)
            return false
        }
        return true
    }

    /// Sends `signal` (only to this child, by its pid).
    func signal(_ signal: Int32) {
        if exitStatus == nil { kill(pid, signal) }
    }

    /// Waits up to `timeoutSeconds` for the exit; the exit status (128 + signal when
    /// killed), or nil when it still runs.
    @discardableResult
    func waitForExit(timeoutSeconds: Double) -> Int32? {
        let deadline = Monotonic.now() + UInt64(timeoutSeconds * 1e9)
        while isRunning {
            if Monotonic.now() > deadline { return nil }
            usleep(2_000)
        }
        return exitStatus
    }

    /// Sends SIGTERM and waits; SIGKILL after `timeoutSeconds`.
    @discardableResult
    func stop(timeoutSeconds: Double = 30) -> Int32? {
        signal(SIGTERM)
        if let status = waitForExit(timeoutSeconds: timeoutSeconds) { return status }
        signal(SIGKILL)
        return waitForExit(timeoutSeconds: 10)
    }

    /// Runs a program to completion; throws unless it exits 0.
    static func run(_ path: String, _ arguments: [String], environment: [String], logPath: String) throws {
        let child = try ChildProcess(path: path, arguments: arguments, environment: environment, logPath: logPath)
        guard let status = child.waitForExit(timeoutSeconds: 60) else {
            throw BenchError("\(path) did not finish within 60 s")
        }
        guard status == 0 else { throw BenchError("\(path) \(arguments.joined(separator: " ")) exited with \(status) (see \(logPath))") }
    }

    private static func decode(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}
