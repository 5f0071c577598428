import Foundation
import Glibc

/// A real `pinvaultd` process on a private socket and state directory, for tests
/// that drive the daemon the way clients do.
///
/// Layout under a fresh temporary directory (0711, so that a test client running
/// as another uid can reach the socket but nothing else):
/// `sock/io.pinvault.Vault` and `sock/ssh-agent.sock` (the daemon makes `sock/` 0755), `state/` (0700),
/// `pinvaultd.toml`, `daemon.log` (its stderr).
public final class TestDaemon {
    public let root: String
    public let socketPath: String
    /// The ssh-agent socket `standardArguments` ask for (the configuration serves none,
    /// so that no test daemon binds the system's default path).
    public let sshAgentSocketPath: String
    public let stateDirectory: String
    public let configPath: String
    public let logPath: String
    public private(set) var process: Process?

    /// Weak KDF parameters and short lockout times, so tests run in milliseconds.
    public static let testConfiguration: [String: [String: String]] = [
        "kdf": ["opslimit": "1", "memlimit_kib": "8", "allow_weak": "true", "max_parallel": "2"],
        "lockout": ["throttle_after": "3", "throttle_base_seconds": "1", "throttle_max_seconds": "2", "max_attempts": "5"],
        "unregister": ["expiry_seconds": "300"],
        "policy": ["deny_list": "\"\(TestDaemon.repositoryRoot)/config/deny-list.txt\""],
        "ssh_agent": ["socket_path": "\"\""],
    ]

    /// `overrides` replaces or adds `[section] key = value` lines (values are TOML);
    /// `removing` drops keys of `testConfiguration` (e.g. to get production KDF costs).
    public init(
        overrides: [String: [String: String]] = [:],
        removing: [String: [String]] = [:],
        configText: String? = nil
    ) throws {
        var template = Array("/tmp/pinvault-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestKitError("mkdtemp failed") }
        root = String(cString: made)
        chmod(root, 0o711)
        socketPath = root + "/sock/io.pinvault.Vault"
        sshAgentSocketPath = root + "/sock/ssh-agent.sock"
        stateDirectory = root + "/state"
        configPath = root + "/pinvaultd.toml"
        logPath = root + "/daemon.log"
        try (configText ?? Self.render(Self.configuration(overrides: overrides, removing: removing)))
            .write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    deinit {
        if let process, process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: root)
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
            "--state-directory", stateDirectory, "--log-level", "debug",
        ]
    }

    /// Starts the daemon and waits until it answers on its socket. `launcher` runs
    /// the daemon through another program (`systemd-socket-activate`): its
    /// arguments come first, then the daemon's path and `arguments`.
    public func start(
        arguments: [String]? = nil,
        environment: [String: String] = [:],
        launcher: (path: String, arguments: [String])? = nil,
        waitForSocket: Bool = true
    ) throws {
        let process = Process()
        if let launcher {
            process.executableURL = URL(fileURLWithPath: launcher.path)
            process.arguments = launcher.arguments + [Self.binaryPath] + (arguments ?? standardArguments)
        } else {
            process.executableURL = URL(fileURLWithPath: Self.binaryPath)
            process.arguments = arguments ?? standardArguments
        }
        var env = ProcessInfo.processInfo.environment
        for key in ["NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "STATE_DIRECTORY", "CREDENTIALS_DIRECTORY", "JOURNAL_STREAM"] {
            env[key] = nil
        }
        process.environment = env.merging(environment) { $1 }
        if !FileManager.default.fileExists(atPath: logPath) {
            FileManager.default.createFile(atPath: logPath, contents: nil)
        }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        log.seekToEndOfFile()
        process.standardError = log
        process.standardOutput = log
        try process.run()
        self.process = process
        if waitForSocket {
            try self.waitForSocket()
        }
    }

    public func waitForSocket(timeout: TimeInterval = 20) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let process, !process.isRunning {
                throw TestKitError("pinvaultd exited with \(process.terminationStatus):\n\(log)")
            }
            if let client = try? VarlinkClient(socketPath: socketPath) {
                client.close()
                return
            }
            usleep(20_000)
        }
        throw TestKitError("pinvaultd did not listen within \(timeout)s:\n\(log)")
    }

    /// Sends `signal` and waits for the exit status.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, timeout: TimeInterval = 30) throws -> Int32 {
        guard let process else { throw TestKitError("not started") }
        kill(process.processIdentifier, signal)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        guard !process.isRunning else { throw TestKitError("pinvaultd did not stop within \(timeout)s") }
        self.process = nil
        return process.terminationStatus
    }

    /// Waits for the daemon to exit by itself; nil when it still runs after `timeout`.
    public func waitForExit(timeout: TimeInterval) -> Int32? {
        guard let process else { return nil }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        guard !process.isRunning else { return nil }
        self.process = nil
        return process.terminationStatus
    }

    /// Runs the daemon to completion (for start-up failures) and returns its status.
    public func runToExit(arguments: [String]? = nil, environment: [String: String] = [:], timeout: TimeInterval = 20) throws -> Int32 {
        try start(arguments: arguments, environment: environment, waitForSocket: false)
        guard let process else { throw TestKitError("not started") }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        guard !process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            throw TestKitError("pinvaultd kept running")
        }
        self.process = nil
        return process.terminationStatus
    }

    public func connect() throws -> VarlinkClient {
        try VarlinkClient(socketPath: socketPath)
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
