import Foundation
import Glibc

/// The C modules as `make stage` builds them — `libpinvault.so.0`, `pam_pinvault.so` and
/// `pinvault-pkcs11.so` — in a world-readable directory of their own: the repository may
/// sit in a 0700 home, a screen locker's pamtester runs as the test user, and a module
/// loaded by sudo or sshd finds the libpinvault beside it through its run path (setuid
/// programs ignore `LD_LIBRARY_PATH`).
public final class StagedCModules: Sendable {
    public let directory: String
    public var pamModule: String { directory + "/pam_pinvault.so" }
    public var pkcs11Module: String { directory + "/pinvault-pkcs11.so" }
    public var library: String { directory + "/libpinvault.so.0" }

    nonisolated(unsafe) private static var cached: Result<StagedCModules, any Error>?
    private static let lock = NSLock()

    /// Built and staged once per test process.
    public static func shared() throws -> StagedCModules {
        lock.lock()
        defer { lock.unlock() }
        if cached == nil { cached = Result { try StagedCModules() } }
        guard let cached else { throw TestKitError("no staged modules") }
        return try cached.get()
    }

    private init() throws {
        var template = Array("/tmp/pinvault-c-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestKitError("mkdtemp: errno \(errno)") }
        directory = String(cString: made)
        guard chmod(directory, 0o755) == 0 else { throw TestKitError("chmod \(directory): errno \(errno)") }
        let built = try Subprocess.run(
            "/usr/bin/env", ["make", "-C", TestDaemon.repositoryRoot, "--no-print-directory", "stage", "STAGE_DIR=\(directory)"],
            timeout: 300)
        guard built.status == 0 else {
            try? FileManager.default.removeItem(atPath: directory)
            throw TestKitError("make stage failed: \(built)")
        }
    }

    /// Removes the staged copies (after the last test of the run).
    public static func removeShared() {
        lock.lock()
        defer { lock.unlock() }
        if case .success(let modules)? = cached {
            try? FileManager.default.removeItem(atPath: modules.directory)
        }
        cached = nil
    }
}
