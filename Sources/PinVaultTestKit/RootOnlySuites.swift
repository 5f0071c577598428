import Foundation
import Glibc

/// The suites that run only as root (clients of other uids through `setpriv`, reading
/// another process's memory, mounts, the unit sandbox) must never pass unrun in silence.
///
/// A suite that cannot run skips through `skip`, handing it XCTest's skip (TestKit does
/// not link XCTest: the benchmark uses it too):
///
///     guard getuid() == 0 else { try RootOnlySuites.skip(self, "needs root to …") { XCTSkip($0) } }
///
/// Not under CI, the suite is recorded and, when the test process exits, one line on
/// stderr names them all: `PinVault: 3 root-only suites were SKIPPED (…): run `make
/// test` as root`. Under CI (`CI=true`; `.ci/run` runs `make test` as root), `skip` throws
/// a failure instead, so the test fails: a missing root or a missing root-only
/// prerequisite (setpriv, python3-seccomp, namespaces) fails the run.
public enum RootOnlySuites {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var skipped: [String: String] = [:]

    /// True under CI (`CI=true`), where no root-only suite may be skipped.
    public static var mustRun: Bool {
        ProcessInfo.processInfo.environment["CI"] == "true"
    }

    /// Skips `testCase` because of `reason`: throws `makeSkip(message)` and records the
    /// suite for the summary line; under CI throws a failure instead.
    public static func skip(_ testCase: AnyObject, _ reason: String, _ makeSkip: (String) -> any Error) throws -> Never {
        let suite = String(describing: type(of: testCase))
        let message = "\(suite) NOT RUN: \(reason)"
        guard !mustRun else { throw TestKitError("under CI (CI=true) a root-only suite must run: " + message) }
        lock.lock()
        if skipped.isEmpty { atexit { RootOnlySuites.printSummary() } }
        skipped[suite] = reason
        lock.unlock()
        throw makeSkip(message)
    }

    /// The one summary line, at exit (no lock: a thread `exit` ended might hold it).
    private static func printSummary() {
        guard !skipped.isEmpty else { return }
        let names = skipped.keys.sorted().joined(separator: ", ")
        let line = "\nPinVault: \(skipped.count) root-only suite\(skipped.count == 1 ? " was" : "s were") SKIPPED "
            + "(\(names)): run `make test` as root\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }
}
