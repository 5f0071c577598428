import Glibc

/// An exclusive `flock(2)` on a file, held until `release()` or deinit: one process
/// (one open file description) at a time, released by the kernel when the holder dies.
///
/// The file is never unlinked: a holder that unlinked it on release could leave a
/// waiter locking the orphaned inode while a newcomer locks a new file, and both
/// would believe they hold the lock.
public final class FileLock: @unchecked Sendable {
    public let path: String
    private var fd: Int32

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    deinit { release() }

    /// Takes the lock on `path` (created 0600 when missing, never through a symlink)
    /// without waiting: nil when another holder has it.
    public static func tryExclusive(path: String) throws(SystemError) -> FileLock? {
        let fd = try Syscall.run("open") { open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0o600) }
        do throws(SystemError) {
            let status = try FileStatus.fstat(fd)
            guard status.kind == .regular else { throw SystemError(call: "open", errno: EINVAL) }
            guard try Syscall.nonBlocking("flock", { flock(fd, LOCK_EX | LOCK_NB) }) != nil else {
                Glibc.close(fd)
                return nil
            }
        } catch {
            Glibc.close(fd)
            throw error
        }
        return FileLock(path: path, fd: fd)
    }

    /// Gives the lock up (idempotent).
    public func release() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
    }
}
