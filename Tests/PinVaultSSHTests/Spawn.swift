import Foundation
import Glibc
import PinVaultTestKit

/// Runs a program with `posix_spawn` and reaps it with `waitpid` itself. (Foundation's
/// `Process` left some of these short-lived children unreaped here, and its
/// `waitUntilExit` then waited forever.) Output goes through files, so a chatty
/// program never blocks on a pipe.
final class Spawned {
    let pid: pid_t
    private let directory: TemporaryDirectory
    private(set) var status: Int32?

    init(_ argv: [String], environment: [String: String], input: String = "") throws {
        directory = try TemporaryDirectory()
        let inputPath = directory.path + "/stdin"
        try input.write(toFile: inputPath, atomically: true, encoding: .utf8)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inputPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, directory.path + "/stdout", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, directory.path + "/stderr", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let arguments = argv.map { strdup($0) } + [nil]
        let variables = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            arguments.forEach { free($0) }
            variables.forEach { free($0) }
        }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, argv[0], &actions, nil, arguments, variables)
        guard spawned == 0 else { throw TestKitError("posix_spawn \(argv[0]): \(spawned)") }
        pid = child
    }

    deinit {
        if status == nil {
            kill(pid, SIGKILL)
            _ = waitUntilExit(timeout: 10)
        }
    }

    /// Reaps the child if it has exited; true once it has.
    func poll() -> Bool {
        if status != nil { return true }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return false }
        status = raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
        return true
    }

    var isRunning: Bool { !poll() }

    /// Waits for the exit; kills it (SIGKILL) past `timeout`. Nil when it never ended.
    @discardableResult
    func waitUntilExit(timeout: TimeInterval) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while !poll() && Date() < deadline { usleep(5_000) }
        if status == nil {
            kill(pid, SIGKILL)
            let killed = Date().addingTimeInterval(5)
            while !poll() && Date() < killed { usleep(5_000) }
        }
        return status
    }

    var standardOutput: String { (try? String(contentsOfFile: directory.path + "/stdout", encoding: .utf8)) ?? "" }
    var standardError: String { (try? String(contentsOfFile: directory.path + "/stderr", encoding: .utf8)) ?? "" }

    /// Runs `argv` to its end (killed after `timeout`): its status and output.
    static func run(_ argv: [String], environment: [String: String], input: String = "", timeout: TimeInterval = 30) throws -> RunResult {
        let spawned = try Spawned(argv, environment: environment, input: input)
        guard let status = spawned.waitUntilExit(timeout: timeout) else {
            throw TestKitError("\(argv.joined(separator: " ")) could not be ended")
        }
        return RunResult(status: status, standardOutput: spawned.standardOutput, standardError: spawned.standardError)
    }
}

/// What a finished program left behind (128 + N: killed by signal N).
struct RunResult: CustomStringConvertible {
    let status: Int32
    let standardOutput: String
    let standardError: String

    var description: String { "exit \(status)\nstdout:\n\(standardOutput)\nstderr:\n\(standardError)" }
}
