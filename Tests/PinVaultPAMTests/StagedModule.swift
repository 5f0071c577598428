import Foundation
import Glibc
import PinVaultTestKit

/// `pam_pinvault.so` as `make pam` builds it, copied into a world-readable directory:
/// the repository may sit in a 0700 home, and a screen locker's pamtester runs as the
/// test user, who must be able to load it.
final class StagedModule: Sendable {
    let directory: String
    let path: String

    nonisolated(unsafe) private static var cached: Result<StagedModule, any Error>?
    private static let lock = NSLock()

    /// Built and staged once per test run.
    static func shared() throws -> StagedModule {
        lock.lock()
        defer { lock.unlock() }
        if cached == nil { cached = Result { try StagedModule() } }
        guard let cached else { throw TestKitError("no module") }
        return try cached.get()
    }

    private init() throws {
        let built = try Subprocess.run("/usr/bin/env", ["make", "-C", TestDaemon.repositoryRoot, "--no-print-directory", "pam"],
                                       timeout: 120)
        guard built.status == 0 else { throw TestKitError("make pam failed: \(built)") }
        var template = Array("/tmp/pinvault-pam-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestKitError("mkdtemp: errno \(errno)") }
        directory = String(cString: made)
        path = directory + "/pam_pinvault.so"
        guard chmod(directory, 0o755) == 0 else { throw TestKitError("chmod \(directory): errno \(errno)") }
        try FileManager.default.copyItem(atPath: TestDaemon.repositoryRoot + "/.build-pam/pam_pinvault.so", toPath: path)
        guard chmod(path, 0o644) == 0 else { throw TestKitError("chmod \(path): errno \(errno)") }
    }

    /// Removes the staged copy (after the last test of the run).
    static func removeShared() {
        lock.lock()
        defer { lock.unlock() }
        if case .success(let module)? = cached {
            try? FileManager.default.removeItem(atPath: module.directory)
        }
        cached = nil
    }
}
