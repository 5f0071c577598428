import Glibc

/// A `sockaddr_un` for a filesystem path, or for an abstract name (first byte NUL),
/// with the length to pass alongside it.
public struct UnixSocketAddress: Sendable {
    /// Longest path that fits with its terminating NUL (107 on Linux).
    public static let maxPathBytes = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    private var address = sockaddr_un()
    private let length: socklen_t

    /// nil when `bytes` is empty, does not fit, or (for a path) holds a NUL.
    public init?(_ bytes: [UInt8]) {
        guard !bytes.isEmpty, bytes.count <= Self.maxPathBytes else { return nil }
        // A path is passed with its NUL; an abstract name is exactly its bytes.
        let isAbstract = bytes[0] == 0
        guard isAbstract || !bytes.contains(0) else { return nil }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (isAbstract ? 0 : 1))
    }

    /// The address of the socket file at `path`.
    public init?(path: String) {
        self.init(Array(path.utf8))
    }

    public func withSockaddr<R, E: Error>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws(E) -> R) throws(E) -> R {
        try withUnsafePointer(to: address) { (pointer) throws(E) -> R in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (address) throws(E) -> R in try body(address, length) }
        }
    }

    /// The address of `path`; `ENAMETOOLONG` or `EINVAL` (naming `call`) when it cannot be one.
    static func of(path: String, for call: String) throws(SystemError) -> UnixSocketAddress {
        let bytes = Array(path.utf8)
        guard let address = UnixSocketAddress(bytes) else {
            throw SystemError(call: call, errno: bytes.count > maxPathBytes ? ENAMETOOLONG : EINVAL)
        }
        return address
    }
}

/// Unix sockets at a path: the client end, and a bound server end.
public enum UnixSocket {
    /// A close-on-exec stream socket connected to `path`, blocking unless `nonBlocking`
    /// (for an event loop: a Unix socket's connect is done at once, or refused with
    /// `EAGAIN` when the server's backlog is full). `ENAMETOOLONG` or `EINVAL` when the
    /// path cannot be an address; the `errno` of `connect` otherwise (`ENOENT`,
    /// `ECONNREFUSED`, `EACCES`…).
    public static func connect(path: String, nonBlocking: Bool = false) throws(SystemError) -> Int32 {
        let address = try UnixSocketAddress.of(path: path, for: "connect")
        let flags = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
        let fd = try Syscall.run("socket") { socket(AF_UNIX, flags, 0) }
        do {
            try address.withSockaddr { (address, length) throws(SystemError) in
                try Syscall.connect { Glibc.connect(fd, address, length) }
            }
        } catch {
            close(fd)
            throw error
        }
        return fd
    }

    /// A close-on-exec socket of `type` (stream or datagram) bound to `path`, which must
    /// not exist; the caller listens on it (a server) or receives on it (`sd_notify`'s
    /// receiver). `nonBlocking` for an event loop. The error names the path
    /// (`bind PATH: Address already in use`).
    ///
    /// `mode`, when given, is the socket file's permission bits, given at bind and never
    /// set afterwards by path (a `chmod(path)` after `bind` would follow a symlink swapped
    /// into the directory meanwhile): the kernel makes the file with mode 0777 less the
    /// umask, so the umask is `~mode` for the instant of the bind. (An `fchmod` of the
    /// socket before bind would not do: the umask still applies.) The umask is the
    /// process's: bind with a mode at start-up, before other threads make files.
    public static func bind(
        path: String, type: __socket_type = SOCK_STREAM, nonBlocking: Bool = false, mode: mode_t? = nil
    ) throws(SystemError) -> Int32 {
        let address = try UnixSocketAddress.of(path: path, for: "bind \(path)")
        let flags = Int32(SOCK_CLOEXEC.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
        let fd = try Syscall.run("socket") { socket(AF_UNIX, Int32(type.rawValue) | flags, 0) }
        let previous = mode.map { umask(~$0 & 0o777) }
        let bound = address.withSockaddr { Glibc.bind(fd, $0, $1) }
        let code = errno
        if let previous { umask(previous) }
        guard bound == 0 else {
            close(fd)
            throw SystemError(call: "bind \(path)", errno: code)
        }
        return fd
    }
}
