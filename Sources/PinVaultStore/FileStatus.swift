import Glibc

/// What PinVault checks of a file or directory: its type, owner and permission bits.
struct FileStatus: Equatable {
    enum Kind: Equatable { case regular, directory, symlink, other }

    var kind: Kind
    var ownerUid: UInt32
    /// Permission bits only (`st_mode & 0o7777`).
    var permissions: UInt32
    var size: Int64

    init(_ raw: stat) {
        switch raw.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symlink
        default: kind = .other
        }
        ownerUid = raw.st_uid
        permissions = UInt32(raw.st_mode & 0o7777)
        size = Int64(raw.st_size)
    }

    /// `lstat(path)`: a symlink is reported as such, never followed. nil when the path
    /// does not exist (ENOENT).
    static func lstat(_ path: String) throws(FileSystemError) -> FileStatus? {
        var raw = stat()
        guard Glibc.lstat(path, &raw) == 0 else {
            if errno == ENOENT { return nil }
            throw FileSystemError.last("lstat")
        }
        return FileStatus(raw)
    }

    /// `fstat(fd)`.
    static func fstat(_ fd: Int32) throws(FileSystemError) -> FileStatus {
        var raw = stat()
        guard Glibc.fstat(fd, &raw) == 0 else { throw FileSystemError.last("fstat") }
        return FileStatus(raw)
    }

    /// True when group or others may write (`0o022`).
    var isWritableByOthers: Bool { permissions & 0o022 != 0 }

    /// True when group or others have any access (`0o077`).
    var isAccessibleByOthers: Bool { permissions & 0o077 != 0 }
}

/// The permission bits as four octal digits, e.g. `0644`.
func octal(_ permissions: UInt32) -> String {
    let digits = String(permissions, radix: 8)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
