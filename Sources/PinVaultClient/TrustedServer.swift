import CPinVaultSystem
import Glibc
import PinVaultSystem

/// Who may serve the socket a client sends PINs to, checked before anything is sent:
/// the kernel's word on the listening process's uid (`SO_PEERCRED`), which must be
/// root, the daemon's own user (`pinvault`, when that user exists), or the caller's
/// own uid (pinvaultd run by hand, `make run`). Anyone else could have put a socket at
/// the path the client was given, and would be handed the PIN. The rule is the one
/// libpinvault's C callers follow (the PKCS#11 module's `trusted_server`).
enum TrustedServer {
    /// The user a packaged pinvaultd runs as.
    static let daemonUser = "pinvault"

    /// Refuses the socket `fd` (connected to `path`) unless a trusted uid serves it.
    static func check(_ fd: Int32, path: String) throws(PinVaultError) {
        var pid: pid_t = 0
        var uid: uid_t = 0
        var gid: gid_t = 0
        guard CPinVaultSystem_peer_credentials(fd, &pid, &uid, &gid) == 0 else {
            throw .daemonUnavailable(socketPath: path, errno: errno)
        }
        let ownUid = geteuid()
        guard admits(uid, ownUid: ownUid, daemonUid: uid == 0 || uid == ownUid ? nil : daemonUid()) else {
            throw .untrustedServer(socketPath: path, uid: uid)
        }
    }

    /// The rule itself: root, the daemon's user, or the caller's own uid.
    static func admits(_ uid: UInt32, ownUid: UInt32, daemonUid: UInt32?) -> Bool {
        uid == 0 || uid == ownUid || uid == daemonUid
    }

    /// The uid of `daemonUser`, through NSS; nil when there is no such user.
    private static func daemonUid() -> UInt32? {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16384)  // glibc's own first size; a long NSS entry fits
        let status = getpwnam_r(daemonUser, &entry, &buffer, buffer.count, &found)
        guard status == 0, let found else { return nil }
        return found.pointee.pw_uid
    }
}
