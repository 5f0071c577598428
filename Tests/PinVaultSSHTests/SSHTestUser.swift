import Foundation
import Glibc
import PinVaultTestKit

/// A throw-away login account for sshd (`useradd`, shell /bin/sh, home in the staging
/// directory, password `*`: no password, but not a locked account, which sshd without
/// PAM would refuse). Deleted with its group when released. Root only.
final class SSHTestUser {
    let name: String
    let uid: UInt32
    let gid: UInt32
    let home: String

    init(home: String) throws {
        name = "pvssh" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        self.home = home
        let made = try Spawned.run([
            "/usr/sbin/useradd", "--no-create-home", "--home-dir", home, "--user-group", "--shell", "/bin/sh",
            "--password", "*", "--comment", "PinVault ssh test", name,
        ], environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"])
        guard made.status == 0 else { throw TestKitError("useradd \(name) failed: \(made)") }
        guard let entry = getpwnam(name) else { throw TestKitError("useradd made no \(name)") }
        uid = entry.pointee.pw_uid
        gid = entry.pointee.pw_gid
        guard mkdir(home, 0o700) == 0, chown(home, uid, gid) == 0 else { throw TestKitError("home \(home): errno \(errno)") }
    }

    deinit {
        _ = try? Spawned.run(["/usr/sbin/userdel", name], environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"])
    }

    /// Runs `command` as this user (setpriv: real and effective ids, its own group only)
    /// with nothing of the test's environment but `environment`.
    func run(_ command: [String], environment: [String: String], input: String = "", timeout: TimeInterval = 30) throws -> RunResult {
        try Self.run(uid: uid, gid: gid, command, environment: environment.merging(["HOME": home, "USER": name]) { $1 },
                     input: input, timeout: timeout)
    }

    /// Runs `command` as `uid`:`gid` (another user: `nobody`).
    static func run(
        uid: UInt32, gid: UInt32, _ command: [String], environment: [String: String], input: String = "", timeout: TimeInterval = 30
    ) throws -> RunResult {
        try Spawned.run(
            ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", "--"] + command,
            environment: ["PATH": "/usr/bin:/bin", "LANG": "C"].merging(environment) { $1 },
            input: input, timeout: timeout
        )
    }
}
