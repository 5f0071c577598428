import Glibc
import PinVaultSystem

/// Makes sure the database file exists as a private regular file before SQLite opens it.
enum DatabaseFile {
    /// Creates `path` 0600 (`O_CREAT|O_NOFOLLOW`) if missing; refuses a symlink, anything
    /// but a regular file, a file owned by another uid, or one that group or others may
    /// access. The descriptor is closed before SQLite opens the file: closing a second
    /// descriptor of a file SQLite holds would drop SQLite's POSIX locks on it.
    static func prepare(path: String) throws(StoreError) {
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0o600)
        guard fd >= 0 else {
            let failure = SystemError.last("open")
            if failure.errno == ELOOP { throw StoreError.cannotOpen(path: path, reason: "is a symlink") }
            throw StoreError.cannotOpen(path: path, reason: failure.description)
        }
        defer { Glibc.close(fd) }
        let status: FileStatus
        do throws(SystemError) {
            status = try FileStatus.fstat(fd)
        } catch {
            throw StoreError.cannotOpen(path: path, reason: error.description)
        }
        guard status.kind == .regular else {
            throw StoreError.cannotOpen(path: path, reason: "not a regular file")
        }
        guard status.ownerUid == geteuid() else {
            throw StoreError.cannotOpen(path: path, reason: "owned by uid \(status.ownerUid), not \(geteuid())")
        }
        guard !status.isAccessibleByOthers else {
            throw StoreError.cannotOpen(
                path: path, reason: "mode \(status.octalPermissions) gives group or others access")
        }
    }
}
