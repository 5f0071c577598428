import Glibc
import PinVaultTestKit

extension TestDaemon {
    /// The installed pinvaultd with the installed configuration, at its own log level,
    /// on private sockets and state directory (`--socket`, `--ssh-agent-socket`,
    /// `--state-directory`). As
    /// root its directory is under /run, where `PrivateTmp=` in the unit sandbox does
    /// not hide it; `owner` hands `sock/` and `state/` to the sandbox's `User=`.
    static func installed(_ installation: Installation, owner: uid_t? = nil) throws -> TestDaemon {
        try TestDaemon(
            configFile: installation.configPath, binary: installation.daemonPath,
            parent: Installation.scratchBase, owner: owner, makeDirectories: true, logLevel: nil)
    }

    /// `scratch/` (0755) beside the daemon's socket and state, made on first use: the
    /// sandbox's private /dev, a sealed pepper, a credentials directory.
    func scratch() throws -> String {
        let path = root + "/scratch"
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else { throw TestKitError("mkdir \(path): errno \(errno)") }
        return path
    }
}
