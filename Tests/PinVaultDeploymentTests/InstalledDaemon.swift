import Foundation
import Glibc
import PinVaultTestKit

/// The installed pinvaultd (or a launcher in front of it) on a private socket and
/// state directory, with its stderr in a file.
final class InstalledDaemon {
    let directory: String
    let socketPath: String
    let stateDirectory: String
    let scratch: String
    let logPath: String
    private(set) var process: Process?

    /// Makes `sock/`, `state/` (0700) and `scratch/` in a fresh directory; `owner`
    /// hands `sock/` and `state/` to that uid (for the sandbox's `User=`).
    init(owner: uid_t? = nil) throws {
        directory = try Installation.makeDirectory(prefix: "pinvault-daemon")
        socketPath = directory + "/sock/io.pinvault.Vault"
        stateDirectory = directory + "/state"
        scratch = directory + "/scratch"
        logPath = directory + "/daemon.log"
        for (name, mode) in [("sock", 0o755), ("state", 0o700), ("scratch", 0o755)] {
            let path = directory + "/" + name
            guard mkdir(path, mode_t(mode)) == 0 else { throw TestKitError("mkdir \(path): errno \(errno)") }
            if let owner, name != "scratch", chown(path, owner, owner) != 0 {
                throw TestKitError("chown \(path): errno \(errno)")
            }
        }
        FileManager.default.createFile(atPath: logPath, contents: nil)
    }

    deinit {
        if let process, process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The flags that override the installed configuration's paths (the agent socket
    /// too: the installed file names the system's /run/pinvault/ssh-agent.sock).
    var pathArguments: [String] {
        ["--socket", socketPath, "--ssh-agent-socket", directory + "/sock/ssh-agent.sock", "--state-directory", stateDirectory]
    }

    /// Starts `executable arguments` and waits until the socket answers.
    func start(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var inherited = ProcessInfo.processInfo.environment
        for key in ["NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "STATE_DIRECTORY", "CREDENTIALS_DIRECTORY", "JOURNAL_STREAM"] {
            inherited[key] = nil
        }
        process.environment = inherited.merging(environment) { $1 }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardOutput = output
        process.standardError = output
        try process.run()
        self.process = process
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            guard process.isRunning else { throw TestKitError("exited with \(process.terminationStatus):\n\(log)") }
            if let client = try? VarlinkClient(socketPath: socketPath) {
                client.close()
                return
            }
            usleep(20_000)
        }
        throw TestKitError("no socket within 20 s:\n\(log)")
    }

    /// SIGTERM, then the exit status.
    func stop() throws -> Int32 {
        guard let process else { throw TestKitError("not started") }
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        guard !process.isRunning else { throw TestKitError("did not stop within 30 s") }
        self.process = nil
        return process.terminationStatus
    }

    func connect() throws -> VarlinkClient { try VarlinkClient(socketPath: socketPath) }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// `/proc/PID/status` as field → value.
    var status: [String: String] {
        guard let pid = process?.processIdentifier,
              let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return [:] }
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        return fields
    }

    /// `VmLck` in KiB.
    var lockedKiB: Int? {
        status["VmLck"].flatMap { Int($0.split(separator: " ").first ?? "") }
    }
}
