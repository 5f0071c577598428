import Foundation
import Glibc

/// This test binary, re-executed with a filter for one test, via posix_spawn.
final class ChildProcess {
    enum Exit: Equatable { case killed, exited(Int32), signalled(Int32), unknown }

    let pid: pid_t
    private let readyRead: Int32
    private let logPath: String
    private var reaped = false

    private init(pid: pid_t, readyRead: Int32, logPath: String) {
        self.pid = pid
        self.readyRead = readyRead
        self.logPath = logPath
    }

    deinit {
        if !reaped { _ = kill() }
        close(readyRead)
    }

    /// Spawns `/proc/self/exe <test>` with `environment` added, the write end of a pipe
    /// as `readyDescriptor`, and stdout/stderr appended to `log`.
    static func spawnSelf(
        test: String, environment: [String: String], readyDescriptor: Int32, log: String
    ) throws -> ChildProcess {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
        let length = readlink("/proc/self/exe", &buffer, buffer.count)
        guard length > 0 else { throw SystemErrorForTests(call: "readlink", errno: errno) }
        let executable = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)

        // Close-on-exec, so that the child keeps only the dup2'd copy of the write end
        // and the parent sees end-of-file when the child dies.
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw SystemErrorForTests(call: "pipe", errno: errno) }
        for end in pipeEnds {
            guard fcntl(end, F_SETFD, FD_CLOEXEC) == 0 else { throw SystemErrorForTests(call: "fcntl", errno: errno) }
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], readyDescriptor)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        var variables = ProcessInfo.processInfo.environment
        for (key, value) in environment { variables[key] = value }
        func copy(_ text: String) -> UnsafeMutablePointer<CChar>? { strdup(text) }
        let arguments = [executable, test].map(copy)
        let environ = variables.map { copy("\($0.key)=\($0.value)") }
        defer {
            arguments.forEach { free($0) }
            environ.forEach { free($0) }
        }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, executable, &actions, nil, arguments + [nil], environ + [nil])
        close(pipeEnds[1])
        guard code == 0 else {
            close(pipeEnds[0])
            throw SystemErrorForTests(call: "posix_spawn", errno: code)
        }
        return ChildProcess(pid: pid, readyRead: pipeEnds[0], logPath: log)
    }

    /// True once the child has written its ready byte; false on timeout or its death.
    func waitUntilReady(timeoutMilliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: readyRead, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, timeoutMilliseconds) == 1 else { return false }
        var byte: UInt8 = 0
        return read(readyRead, &byte, 1) == 1
    }

    /// SIGKILL, then reaps the child and says how it ended.
    @discardableResult
    func kill() -> Exit {
        guard !reaped else { return .unknown }
        _ = Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return .unknown }
        }
        reaped = true
        let signal = status & 0x7f
        if signal == 0 { return .exited((status >> 8) & 0xff) }
        return signal == SIGKILL ? .killed : .signalled(signal)
    }

    /// The last 2000 bytes of the child's output.
    func logTail() -> String {
        guard let data = FileManager.default.contents(atPath: logPath) else { return "(no log)" }
        return String(decoding: data.suffix(2000), as: UTF8.self)
    }
}
