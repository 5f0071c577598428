import Foundation
import Glibc

/// A real `pinvaultd` process on a private socket and state directory: the one
/// launcher of the tests, the benchmark (`make bench`) and the deployment tests.
///
/// Layout under a fresh directory (`/tmp/pinvault-test-XXXXXX` unless told; 0711, so
/// that a client running as another uid can reach the socket but nothing else):
/// `sock/io.pinvault.Vault`, `sock/ssh-agent.sock` and `sock/ctaphid.sock`, `state/`, `pinvaultd.toml` (when
/// the configuration is rendered here), `daemon.log` (its stdout and stderr). The daemon
/// makes `sock/` (0755) and `state/` (0700) itself, unless `makeDirectories` or `owner`
/// has them made here first.
///
/// What it runs is configurable: the binary (the build's `pinvaultd` by default; the
/// bench passes the release one, the deployment tests the installed one), the
/// configuration (the rendered test configuration, or an existing file), the owner of
/// `sock/` and `state/` (for a daemon that runs as another uid, as the unit's `User=`),
/// a launcher in front of it (`systemd-socket-activate`, `setpriv`, the unit sandbox),
/// and its environment (this process's, minus what systemd hands a service).
public final class TestDaemon {
    public let root: String
    public let socketPath: String
    /// The ssh-agent socket `standardArguments` ask for (the configuration serves none,
    /// so that no test daemon binds the system's default path).
    public let sshAgentSocketPath: String
    /// The CTAPHID socket `standardArguments` ask for (the configuration serves none).
    public let ctaphidSocketPath: String
    public let stateDirectory: String
    public let configPath: String
    public let logPath: String
    /// The `pinvaultd` this daemon runs.
    public let binary: String
    /// `--log-level` in `standardArguments`; nil leaves the configuration's.
    public let logLevel: String?
    /// The process (the launcher's, when there is one), while it is started.
    public private(set) var process: ChildProcess?
    private let environment: [String: String]

    /// The process id, while it is started.
    public var pid: pid_t? { process?.pid }

    /// Weak KDF parameters and short lockout times, so tests run in milliseconds.
    public static let testConfiguration: [String: [String: String]] = [
        "kdf": ["opslimit": "1", "memlimit_kib": "8", "allow_weak": "true", "max_parallel": "2"],
        "lockout": ["throttle_after": "3", "throttle_base_seconds": "1", "throttle_max_seconds": "2", "max_attempts": "5"],
        "unregister": ["expiry_seconds": "300"],
        "policy": ["deny_list": TestDaemon.tomlString(TestDaemon.denyListPath)],
        "ssh_agent": ["socket_path": "\"\""],
        "webauthn": ["socket": "\"\""],
    ]

    /// The shipped deny list, which the test configuration loads.
    public static let denyListPath = TestDaemon.repositoryRoot + "/config/deny-list.txt"

    /// `overrides` replaces or adds `[section] key = value` lines (values are TOML);
    /// `removing` drops keys of `testConfiguration` (e.g. to get production KDF costs);
    /// `configText` replaces the rendered text; `configFile` uses an existing file as it
    /// is (`config/pinvaultd.toml`, an installed one) and renders nothing.
    ///
    /// `binary` is the `pinvaultd` to run; `parent` the directory to make the root in;
    /// `owner` hands `sock/` and `state/` to that uid (and its gid) for a daemon that
    /// runs as it; `makeDirectories` makes them without an owner (a store to fill
    /// before the first start, a socket directory for a launcher that binds).
    /// `environment` replaces the inherited one (`ChildProcess.inheritedEnvironment`).
    public init(
        overrides: [String: [String: String]] = [:],
        removing: [String: [String]] = [:],
        configText: String? = nil,
        configFile: String? = nil,
        binary: String = TestDaemon.binaryPath,
        parent: String = "/tmp",
        owner: uid_t? = nil,
        makeDirectories: Bool = false,
        logLevel: String? = "debug",
        environment: [String: String]? = nil
    ) throws {
        var template = Array("\(parent)/pinvault-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestKitError("mkdtemp in \(parent): errno \(errno)") }
        root = String(cString: made)
        guard chmod(root, 0o711) == 0 else { throw TestKitError("chmod \(root): errno \(errno)") }
        socketPath = root + "/sock/io.pinvault.Vault"
        sshAgentSocketPath = root + "/sock/ssh-agent.sock"
        ctaphidSocketPath = root + "/sock/ctaphid.sock"
        stateDirectory = root + "/state"
        logPath = root + "/daemon.log"
        self.binary = binary
        self.logLevel = logLevel
        self.environment = environment ?? ChildProcess.inheritedEnvironment()
        if let configFile {
            configPath = configFile
        } else {
            configPath = root + "/pinvaultd.toml"
            try (configText ?? Self.render(Self.configuration(overrides: overrides, removing: removing)))
                .write(toFile: configPath, atomically: true, encoding: .utf8)
        }
        if owner != nil || makeDirectories {
            for (path, mode) in [(root + "/sock", mode_t(0o755)), (stateDirectory, mode_t(0o700))] {
                guard mkdir(path, mode) == 0 else { throw TestKitError("mkdir \(path): errno \(errno)") }
                if let owner, chown(path, owner, owner) != 0 { throw TestKitError("chown \(path): errno \(errno)") }
            }
        }
    }

    deinit {
        process = nil  // SIGKILLs and reaps a daemon still running
        try? FileManager.default.removeItem(atPath: root)
    }

    /// `path` as a TOML basic string.
    public static func tomlString(_ path: String) -> String {
        "\"" + path.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// The repository, found from this file's path.
    public static let repositoryRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// `pinvaultd` from the same build as the running tests.
    public static var binaryPath: String {
        let tests = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = tests.deletingLastPathComponent()
        if directory.lastPathComponent == "MacOS" || tests.pathExtension != "xctest" {
            directory = directory.deletingLastPathComponent()
        }
        for candidate in [directory, tests.deletingLastPathComponent()] {
            let path = candidate.appendingPathComponent("pinvaultd").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return TestDaemon.repositoryRoot + "/.build/debug/pinvaultd"
    }

    /// The release `pinvaultd` that users run (`make release`'s build, which `make test`
    /// makes first): `PINVAULT_RELEASE_DAEMON` when set, else the one in the
    /// repository's `.build-release` (the Makefile's release folder). Throws when there
    /// is none, so that a test of it fails rather than skips.
    public static func releaseBinaryPath() throws -> String {
        if let path = ProcessInfo.processInfo.environment["PINVAULT_RELEASE_DAEMON"], !path.isEmpty {
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw TestKitError("PINVAULT_RELEASE_DAEMON=\(path) is not an executable")
            }
            return path
        }
        let path = repositoryRoot + "/.build-release/release/pinvaultd"
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw TestKitError("no release pinvaultd at \(path): make test builds it (make release-daemon)")
        }
        return path
    }

    /// `testConfiguration` with `overrides` merged in and `removing` taken out.
    public static func configuration(
        overrides: [String: [String: String]] = [:],
        removing: [String: [String]] = [:]
    ) -> [String: [String: String]] {
        var sections = testConfiguration.merging(overrides) { base, extra in base.merging(extra) { $1 } }
        for (section, keys) in removing {
            for key in keys { sections[section]?[key] = nil }
        }
        return sections
    }

    /// The TOML text of `sections`.
    public static func render(_ sections: [String: [String: String]]) -> String {
        var text = ""
        for section in sections.keys.sorted() {
            text += "[\(section)]\n"
            for (key, value) in sections[section, default: [:]].sorted(by: { $0.key < $1.key }) {
                text += "\(key) = \(value)\n"
            }
        }
        return text
    }

    /// The arguments `start` passes by default.
    public var standardArguments: [String] {
        [
            "--config", configPath, "--socket", socketPath, "--ssh-agent-socket", sshAgentSocketPath,
            "--ctaphid-socket", ctaphidSocketPath, "--state-directory", stateDirectory,
        ] + (logLevel.map { ["--log-level", $0] } ?? [])
    }

    /// Starts the daemon and waits until it answers on its socket. `launcher` runs
    /// the daemon through another program (`systemd-socket-activate`, `setpriv`): its
    /// arguments come first, then the daemon's path and `arguments`. `environment` is
    /// added to the daemon's.
    public func start(
        arguments: [String]? = nil,
        environment: [String: String] = [:],
        launcher: (path: String, arguments: [String])? = nil,
        waitForSocket: Bool = true
    ) throws {
        guard process == nil else { throw TestKitError("pinvaultd already runs") }
        let daemonArguments = arguments ?? standardArguments
        let (path, argv) = launcher.map { ($0.path, $0.arguments + [binary] + daemonArguments) } ?? (binary, daemonArguments)
        process = try ChildProcess(
            path: path, arguments: argv, environment: self.environment.merging(environment) { $1 }, logPath: logPath)
        if waitForSocket {
            try self.waitForSocket()
        }
    }

    /// Polls until a connection to the socket is accepted; throws when the daemon
    /// exits first or `timeout` passes. pinvaultd binds its Varlink socket last, so
    /// the agent socket is there too by then.
    public func waitForSocket(timeout: TimeInterval = 20) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let process, !process.isRunning {
                throw TestKitError("pinvaultd exited with \(process.termination.map(String.init(describing:)) ?? "?"):\n\(log)")
            }
            if let client = try? VarlinkClient(socketPath: socketPath) {
                client.close()
                return
            }
            usleep(20_000)
        }
        throw TestKitError("pinvaultd did not listen within \(timeout)s:\n\(log)")
    }

    /// Sends `signal` and waits for the exit status (128 + signal when a signal ended
    /// it). Throws when it still runs after `timeout`, having SIGKILLed it.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, timeout: TimeInterval = 30) throws -> Int32 {
        guard let process else { throw TestKitError("not started") }
        process.signal(signal)
        guard let status = process.waitForExit(timeout: timeout) else {
            process.stop(signal: SIGKILL, timeout: 10)
            self.process = nil
            throw TestKitError("pinvaultd did not stop within \(timeout)s")
        }
        self.process = nil
        return status
    }

    /// Waits for the daemon to exit by itself; nil when it still runs after `timeout`.
    public func waitForExit(timeout: TimeInterval) -> Int32? {
        guard let status = process?.waitForExit(timeout: timeout) else { return nil }
        process = nil
        return status
    }

    /// Runs the daemon to completion (for start-up failures) and returns its status.
    public func runToExit(arguments: [String]? = nil, environment: [String: String] = [:], timeout: TimeInterval = 20) throws -> Int32 {
        try start(arguments: arguments, environment: environment, waitForSocket: false)
        guard let status = waitForExit(timeout: timeout) else {
            process?.stop(signal: SIGKILL, timeout: 10)
            process = nil
            throw TestKitError("pinvaultd kept running")
        }
        return status
    }

    public func connect() throws -> VarlinkClient {
        try VarlinkClient(socketPath: socketPath)
    }

    /// The daemon's `/proc/PID/status` now.
    public func memory() throws -> ProcessMemory {
        guard let pid else { throw TestKitError("pinvaultd is not running") }
        return try ProcessMemory(pid: pid)
    }

    /// What the daemon wrote to stderr so far.
    public var log: String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }
}

public struct TestKitError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
