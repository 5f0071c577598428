import Foundation
import Glibc

/// pinvault-uhid as the tests run it: by default its AddressSanitizer and UBSan build
/// (`make uhid-sanitized`), every finding fatal (the deployment tests pass the installed
/// one, and a launcher: the unit sandbox); told the seat's active user on its standard
/// input (`--test-seat-stdin`: a uid, or "-" for none, a line each) instead of asking
/// logind, and opening its devices on the socket of a kernel a test plays (`UHIDKernel`,
/// or python-fido2's, Tests/Python/ctaphid_socket.py), or, given none, on /dev/uhid.
public final class UHIDBridge {
    public let process: ChildProcess
    public let logPath: String
    private var seat: Int32

    /// Built once per test process.
    public static func sanitizedBinary() throws -> String {
        lock.lock()
        defer { lock.unlock() }
        if built == nil {
            built = Result {
                let result = try Subprocess.run(
                    "/usr/bin/env", ["make", "-C", TestDaemon.repositoryRoot, "--no-print-directory", "uhid-sanitized"], timeout: 300)
                guard result.status == 0 else { throw TestKitError("make uhid-sanitized failed: \(result)") }
                return TestDaemon.repositoryRoot + "/.build-uhid/pinvault-uhid-sanitized"
            }
        }
        guard let built else { throw TestKitError("not built") }
        return try built.get()
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var built: Result<String, any Error>?

    /// `launcher` (a program and its arguments) runs in front of the binary.
    public init(
        binary: String? = nil, launcher: (String, [String])? = nil, ctaphidSocket: String, kernelPath: String?, directory: String
    ) throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw TestKitError("pipe: errno \(errno)") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        seat = ends[1]
        logPath = directory + "/pinvault-uhid.log"
        var arguments = ["--ctaphid-socket", ctaphidSocket, "--test-seat-stdin"]
        if let kernelPath { arguments += ["--test-uhid-socket", kernelPath] }
        do {
            let program = try binary ?? Self.sanitizedBinary()
            let (path, argv) = launcher.map { ($0.0, $0.1 + [program] + arguments) } ?? (program, arguments)
            process = try ChildProcess(
                path: path, arguments: argv, environment: ChildProcess.inheritedEnvironment(), logPath: logPath,
                descriptors: [ends[0]: 0])
        } catch {
            close(ends[0])
            close(ends[1])
            throw error
        }
        close(ends[0])
    }

    deinit {
        if seat >= 0 { close(seat) }
    }

    /// The seat's active user from now on: `uid`, or nobody.
    public func activate(_ uid: UInt32?) throws {
        let line = Array((uid.map(String.init) ?? "-").utf8) + [10]
        guard line.withUnsafeBytes({ write(seat, $0.baseAddress, $0.count) }) == line.count else {
            throw TestKitError("pinvault-uhid's standard input: errno \(errno)")
        }
    }

    /// The end of its input: it removes the device and exits; its status (nil if it had
    /// not within 30 s: then it is killed).
    public func stop() -> Int32? {
        if seat >= 0 { close(seat) }
        seat = -1
        guard let status = process.waitForExit(timeout: 30) else {
            process.stop(signal: SIGKILL)
            return nil
        }
        return status
    }

    /// SIGTERM: it removes the device and exits; its status.
    public func terminate() -> Int32? { process.stop(signal: SIGTERM, timeout: 30) }

    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// A sanitizer's report, if its log holds one.
    public var sanitizerFinding: String? {
        log.split(separator: "\n").first { $0.contains("AddressSanitizer") || $0.contains("runtime error:") || $0.contains("LeakSanitizer") }
            .map(String.init)
    }
}
