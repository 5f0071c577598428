import Foundation
import Glibc

/// A helper program run to completion, with its output captured (for the Python
/// clients, `setpriv`, and the independent Ed25519 verifier).
public enum Subprocess {
    /// What a finished program left behind.
    public struct Result: CustomStringConvertible {
        public let status: Int32
        public let standardOutput: String
        public let standardError: String

        public var description: String {
            "exit \(status)\nstdout:\n\(standardOutput)\nstderr:\n\(standardError)"
        }
    }

    /// Runs `executable` with `arguments`, feeding it `input`; kills it after `timeout`.
    /// Output goes through files, so a chatty program never blocks on a full pipe.
    public static func run(
        _ executable: String,
        _ arguments: [String],
        input: Data = Data(),
        environment: [String: String]? = nil,
        timeout: TimeInterval = 30
    ) throws -> Result {
        let directory = try TemporaryDirectory()
        let outputPath = directory.path + "/stdout"
        let errorPath = directory.path + "/stderr"
        let inputPath = directory.path + "/stdin"
        for path in [outputPath, errorPath] {
            FileManager.default.createFile(atPath: path, contents: nil)
        }
        try input.write(to: URL(fileURLWithPath: inputPath))

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: "/")
        if let environment { process.environment = environment }
        let handles = [
            try FileHandle(forReadingFrom: URL(fileURLWithPath: inputPath)),
            try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath)),
            try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath)),
        ]
        // Closed here: Foundation's Process keeps them open otherwise, three descriptors
        // a run, which a test running thousands of programs (CrashSweep) runs out of.
        defer { for handle in handles { try? handle.close() } }
        process.standardInput = handles[0]
        process.standardOutput = handles[1]
        process.standardError = handles[2]
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw TestKitError("\(executable) ran longer than \(timeout)s")
        }
        return Result(
            status: process.terminationStatus,
            standardOutput: (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "",
            standardError: (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        )
    }
}

/// A private directory under /tmp, removed with its contents when released.
public final class TemporaryDirectory {
    public let path: String

    /// `mode` 0700 keeps it private; 0711 lets another uid reach a known name inside.
    public init(mode: mode_t = 0o700) throws {
        var template = Array("/tmp/pinvault-itest-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestKitError("mkdtemp: errno \(errno)") }
        path = String(cString: made)
        guard chmod(path, mode) == 0 else { throw TestKitError("chmod \(path): errno \(errno)") }
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
