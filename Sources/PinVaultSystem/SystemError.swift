import Glibc

/// A failed system call: its name and `errno`, described with `strerror`. Carries no
/// payload data, so it may be logged and shown.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The call that failed, e.g. `"open"`; a caller may add what it was called on.
    public var call: String
    /// Its `errno`.
    public var errno: Int32

    public init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    /// The failure of `call` with the current `errno`.
    public static func last(_ call: String) -> SystemError {
        SystemError(call: call, errno: Glibc.errno)
    }

    public var description: String {
        "\(call): \(String(cString: strerror(errno)))"
    }
}
