import Glibc
import PinVaultSystem

/// The daemon's state directory (`vault.sqlite`, `pepper`): private to the daemon's uid.
public enum StateDirectory {
    /// Creates the directory (0700) if missing — only the last component, never its
    /// parents; refuses when it is not a directory, is a symlink, is not owned by the
    /// effective uid, or is writable by group or others.
    public static func prepare(path: String) throws(StateDirectoryError) {
        func fail(_ reason: StateDirectoryError.Reason) -> StateDirectoryError {
            StateDirectoryError(path: path, reason: reason)
        }
        var status: FileStatus?
        do throws(SystemError) {
            status = try FileStatus.lstat(path)
            if status == nil {
                // EEXIST: someone made it between lstat and mkdir; check what they made.
                if mkdir(path, 0o700) != 0 && errno != EEXIST { throw SystemError.last("mkdir") }
                status = try FileStatus.lstat(path)
            }
        } catch {
            throw fail(.system(error))
        }
        guard let status else { throw fail(.system(SystemError(call: "lstat", errno: ENOENT))) }
        switch status.kind {
        case .directory: break
        case .symlink: throw fail(.symlink)
        case .regular, .other: throw fail(.notDirectory)
        }
        guard status.ownerUid == geteuid() else { throw fail(.wrongOwner(uid: status.ownerUid)) }
        guard !status.isWritableByOthers else { throw fail(.writableByOthers(mode: status.permissions)) }
    }
}
