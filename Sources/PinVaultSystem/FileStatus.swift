import Glibc

/// What PinVault checks of a file or directory: its type, owner and permission bits.
public struct FileStatus: Equatable, Sendable {
    public enum Kind: Equatable, Sendable { case regular, directory, symlink, other }

    public var kind: Kind
    public var ownerUid: UInt32
    /// Permission bits only (`st_mode & 0o7777`).
    public var permissions: UInt32
    public var size: Int64

    public init(_ raw: stat) {
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
    public static func lstat(_ path: String) throws(SystemError) -> FileStatus? {
        var raw = stat()
        guard Glibc.lstat(path, &raw) == 0 else {
            if errno == ENOENT { return nil }
            throw SystemError.last("lstat")
        }
        return FileStatus(raw)
    }

    /// `fstat(fd)`.
    public static func fstat(_ fd: Int32) throws(SystemError) -> FileStatus {
        var raw = stat()
        guard Glibc.fstat(fd, &raw) == 0 else { throw SystemError.last("fstat") }
        return FileStatus(raw)
    }

    /// True when group or others may write (`0o022`).
    public var isWritableByOthers: Bool { permissions & 0o022 != 0 }

    /// True when group or others have any access (`0o077`).
    public var isAccessibleByOthers: Bool { permissions & 0o077 != 0 }

    /// The permission bits as four octal digits, e.g. `0644`.
    public var octalPermissions: String { Self.octal(permissions) }

    /// `permissions` as four octal digits, e.g. `0644`.
    public static func octal(_ permissions: UInt32) -> String {
        let digits = String(permissions, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
