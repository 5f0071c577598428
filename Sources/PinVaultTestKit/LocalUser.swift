import Foundation
import Glibc

/// A throw-away local account (`useradd`, no home, no password, nologin shell, unless
/// `allowLogin` gives it a shell and a password), deleted with its group when
/// released. Root only. (The PAM tests' users, pinvault-uhid's seat users.)
public final class LocalUser {
    public let name: String
    public let uid: UInt32
    public let gid: UInt32

    public init() throws {
        name = "pvt" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let made = try Subprocess.run("/usr/sbin/useradd", [
            "--no-create-home", "--user-group", "--shell", "/usr/sbin/nologin", "--comment", "PinVault PAM test", name,
        ])
        guard made.status == 0 else { throw TestKitError("useradd \(name) failed: \(made)") }
        guard let entry = getpwnam(name) else { throw TestKitError("useradd made no \(name)") }
        uid = entry.pointee.pw_uid
        gid = entry.pointee.pw_gid
    }

    deinit {
        _ = try? Subprocess.run("/usr/sbin/userdel", [name])
    }

    /// Makes the account one that can log in: shell /bin/sh, and `password` as its Unix
    /// password (through chpasswd's standard input, never an argument).
    public func allowLogin(password: String) throws {
        let shell = try Subprocess.run("/usr/sbin/usermod", ["--shell", "/bin/sh", name])
        guard shell.status == 0 else { throw TestKitError("usermod \(name) failed: \(shell)") }
        let set = try Subprocess.run("/usr/sbin/chpasswd", [], input: Data("\(name):\(password)\n".utf8))
        guard set.status == 0 else { throw TestKitError("chpasswd failed: \(set)") }
    }

    /// `command` run as this user (real and effective uid and gid, no supplementary groups).
    public func setpriv(_ command: [String]) -> [String] {
        ["--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", "--"] + command
    }
}
