import Foundation
import Glibc
import PinVaultTestKit

/// This test binary, re-executed (TestKit's `ChildProcess`) with a filter for one test,
/// the write end of a pipe as `readyDescriptor`, and its output appended to a log.
final class CrashChild {
    private let process: ChildProcess
    private let readyRead: Int32
    private let logPath: String

    /// Spawns `/proc/self/exe <test>` with `environment` added.
    init(test: String, environment: [String: String], readyDescriptor: Int32, log: String) throws {
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
        defer { close(pipeEnds[1]) }
        do {
            process = try ChildProcess(
                path: executable, arguments: [test],
                environment: ChildProcess.inheritedEnvironment().merging(environment) { $1 },
                logPath: log, descriptors: [pipeEnds[1]: readyDescriptor])
        } catch {
            close(pipeEnds[0])
            throw error
        }
        readyRead = pipeEnds[0]
        logPath = log
    }

    deinit {
        close(readyRead)
    }

    /// True once the child has written its ready byte; false on timeout or its death.
    func waitUntilReady(timeoutMilliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: readyRead, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, timeoutMilliseconds) == 1 else { return false }
        var byte: UInt8 = 0
        return read(readyRead, &byte, 1) == 1
    }

    /// SIGKILL, then reaps the child and says how it ended (nil: it would not die).
    @discardableResult
    func kill() -> ChildProcess.Termination? {
        process.stop(signal: SIGKILL, timeout: 10)
        return process.termination
    }

    /// The last 2000 bytes of the child's output.
    func logTail() -> String {
        guard let data = FileManager.default.contents(atPath: logPath) else { return "(no log)" }
        return String(decoding: data.suffix(2000), as: UTF8.self)
    }
}
