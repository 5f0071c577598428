import Glibc
import PinVaultSystem

/// A program started with `posix_spawn`, the one way tests, benchmarks and deployment
/// tests start a program that runs beside them (a daemon, a launcher, a peer): stdin
/// from /dev/null, stdout and stderr appended to a log file, default signal handling
/// and an empty signal mask, no descriptor of this process but the ones it names.
/// Killed (SIGKILL) and reaped on release if it still runs.
///
/// `posix_spawn` and no Foundation, so that a benchmark can time a start from just
/// before the call. (`Subprocess` runs a helper to completion and captures its output.)
public final class ChildProcess {
    /// How a process ended.
    public enum Termination: Equatable, Sendable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        /// The shell's number: the exit code, or 128 + the signal.
        public var status: Int32 {
            switch self {
            case .exited(let code): code
            case .signalled(let signal): 128 + signal
            }
        }

        public var description: String {
            switch self {
            case .exited(let code): "exit \(code)"
            case .signalled(let signal): "signal \(signal)"
            }
        }

        init(waitStatus: Int32) {
            let signal = waitStatus & 0x7f
            self = signal == 0 ? .exited((waitStatus >> 8) & 0xff) : .signalled(signal)
        }
    }

    public let pid: pid_t
    public let path: String
    public private(set) var termination: Termination?

    /// Starts `path` with `arguments` (argv[1...]) and exactly `environment`.
    /// `descriptors` maps a descriptor of this process to the number the child gets
    /// (a pipe's write end, say); every other descriptor above 2 is closed in the child.
    public init(
        path: String,
        arguments: [String],
        environment: [String: String],
        logPath: String,
        descriptors: [Int32: Int32] = [:]
    ) throws {
        self.path = path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        for (source, target) in descriptors {
            posix_spawn_file_actions_adddup2(&actions, source, target)
        }
        for fd in Self.inheritableDescriptors() where !descriptors.values.contains(fd) {
            posix_spawn_file_actions_addclose(&actions, fd)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var everySignal = sigset_t()
        sigfillset(&everySignal)
        var noSignal = sigset_t()
        sigemptyset(&noSignal)
        posix_spawnattr_setsigdefault(&attributes, &everySignal)
        posix_spawnattr_setsigmask(&attributes, &noSignal)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0.key + "=" + $0.value) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var child: pid_t = 0
        do {
            try Syscall.returningError("posix_spawn") { posix_spawn(&child, path, &actions, &attributes, argv, envp) }
        } catch {
            throw TestKitError("posix_spawn \(path): \(error)")
        }
        pid = child
    }

    deinit {
        if termination == nil {
            kill(pid, SIGKILL)
            _ = waitForExit(timeout: 10)
        }
    }

    /// This process's environment without what systemd hands a service (`NOTIFY_SOCKET`,
    /// `LISTEN_*`, `STATE_DIRECTORY`, `CREDENTIALS_DIRECTORY`, `JOURNAL_STREAM`), which
    /// must not leak from whoever runs the tests into a daemon under test.
    public static func inheritedEnvironment() -> [String: String] {
        var variables: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry += 1
        }
        for key in variables.keys where key.hasPrefix("LISTEN_") || serviceVariables.contains(key) {
            variables[key] = nil
        }
        return variables
    }

    private static let serviceVariables: Set = ["NOTIFY_SOCKET", "STATE_DIRECTORY", "CREDENTIALS_DIRECTORY", "JOURNAL_STREAM"]

    /// True while the process has not exited (reaps it when it has).
    public var isRunning: Bool {
        guard termination == nil else { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid {
            termination = Termination(waitStatus: status)
            return false
        }
        return true
    }

    /// The exit status (128 + signal when killed); nil while it runs.
    public var exitStatus: Int32? {
        _ = isRunning
        return termination?.status
    }

    /// Sends `signal` (only to this child, by its pid, and only while it is unreaped).
    public func signal(_ signal: Int32) {
        if termination == nil { kill(pid, signal) }
    }

    /// Waits up to `timeout` seconds for the exit; the exit status (128 + signal when
    /// killed), or nil when it still runs.
    @discardableResult
    public func waitForExit(timeout: Double) -> Int32? {
        let deadline = MonotonicClock.nanoseconds() + UInt64(max(timeout, 0) * 1e9)
        while isRunning {
            if MonotonicClock.nanoseconds() > deadline { return nil }
            usleep(2_000)
        }
        return termination?.status
    }

    /// Sends `signal` (SIGTERM) and waits; SIGKILL after `timeout` seconds. The exit
    /// status, or nil when even SIGKILL did not end it within 10 s.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, timeout: Double = 30) -> Int32? {
        self.signal(signal)
        if let status = waitForExit(timeout: timeout) { return status }
        self.signal(SIGKILL)
        return waitForExit(timeout: 10)
    }

    /// The descriptors above 2 that an exec would keep (no `FD_CLOEXEC`).
    private static func inheritableDescriptors() -> [Int32] {
        guard let directory = opendir("/proc/self/fd") else { return [] }
        defer { closedir(directory) }
        let own = dirfd(directory)
        var found: [Int32] = []
        while let entry = readdir(directory) {
            // The name as the entry holds it: a dirent is only as long as its name, so
            // copying `d_name` whole reads past the last entry of a full page.
            let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name) ?? 19
            let name = String(cString: (UnsafeRawPointer(entry) + nameOffset).assumingMemoryBound(to: CChar.self))
            guard let fd = Int32(name), fd > 2, fd != own else { continue }
            let flags = fcntl(fd, F_GETFD)
            if flags >= 0 && flags & FD_CLOEXEC == 0 { found.append(fd) }
        }
        return found
    }
}
