import Foundation
import Glibc
import PinVaultTestKit

/// One `make install DESTDIR=…` of the binaries the tests were built with
/// (`INSTALL_FROM`, so no release build), shared by every deployment test of a run.
///
/// As root it lives under /run, not /tmp, so that `PrivateTmp=` in the unit sandbox
/// does not hide it; the root is 0755 so the sandbox's unprivileged uid reaches the
/// binary.
final class Installation: Sendable {
    /// The scratch directory holding everything.
    let root: String
    /// DESTDIR; PREFIX is /usr/local, SYSCONFDIR /etc.
    let destination: String

    var daemonPath: String { destination + "/usr/local/bin/pinvaultd" }
    var cliPath: String { destination + "/usr/local/bin/pinvault" }
    var unitDirectory: String { destination + "/usr/local/lib/systemd/system" }
    var servicePath: String { unitDirectory + "/pinvaultd.service" }
    var userUnitDirectory: String { destination + "/usr/local/lib/systemd/user" }
    var configPath: String { destination + "/etc/pinvault/pinvaultd.toml" }
    var sealScript: String { destination + "/usr/local/sbin/pinvault-seal-pepper" }

    nonisolated(unsafe) private static var cached: Result<Installation, any Error>?
    private static let lock = NSLock()

    /// The installation, made on first use.
    static func shared() throws -> Installation {
        lock.lock()
        defer { lock.unlock() }
        if cached == nil { cached = Result { try Installation() } }
        guard let cached else { throw TestKitError("no installation") }
        return try cached.get()
    }

    private init() throws {
        root = try Installation.makeDirectory(prefix: "pinvault-deploy")
        destination = root + "/dest"
        let result = try Installation.make(["install", "DESTDIR=\(destination)", "INSTALL_FROM=\(Installation.builtBinaries)"])
        guard result.status == 0 else { throw TestKitError("make install failed: \(result)") }
    }

    /// The directory of the pinvaultd (and pinvault) these tests were built with.
    static var builtBinaries: String {
        URL(fileURLWithPath: TestDaemon.binaryPath).deletingLastPathComponent().path
    }

    /// Runs `make` in the repository.
    static func make(_ arguments: [String], timeout: TimeInterval = 60) throws -> Subprocess.Result {
        try Subprocess.run("/usr/bin/env", ["make", "-C", TestDaemon.repositoryRoot] + arguments, timeout: timeout)
    }

    /// /run as root (outside PrivateTmp's reach), else /tmp.
    static var scratchBase: String {
        geteuid() == 0 && access("/run", W_OK) == 0 ? "/run" : "/tmp"
    }

    /// A fresh 0755 directory under `scratchBase`.
    static func makeDirectory(prefix: String) throws -> String {
        var template = Array("\(scratchBase)/\(prefix)-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestKitError("mkdtemp: errno \(errno)") }
        let path = String(cString: made)
        guard chmod(path, 0o755) == 0 else { throw TestKitError("chmod \(path): errno \(errno)") }
        return path
    }

    /// Removes the installation (after the last test of the run).
    static func removeShared() {
        lock.lock()
        defer { lock.unlock() }
        if case .success(let installation)? = cached {
            try? FileManager.default.removeItem(atPath: installation.root)
        }
        cached = nil
    }
}
