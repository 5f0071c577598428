import Glibc

/// A failed file-system call (open, fstat, mkdir, read, fsync…): its name and `errno`, described with `strerror`.
public struct FileSystemError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The call that failed, e.g. `"open"`.
    public var call: String
    /// Its `errno`.
    public var errno: Int32

    public init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    /// The failure of `call` with the current `errno`.
    static func last(_ call: String) -> FileSystemError {
        FileSystemError(call: call, errno: Glibc.errno)
    }

    public var description: String {
        "\(call): \(String(cString: strerror(errno)))"
    }
}
