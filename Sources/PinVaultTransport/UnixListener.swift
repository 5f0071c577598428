import CPinVaultSystem
import Glibc
import PinVaultSystem

/// The listening Unix stream socket: bound by the daemon itself, or inherited from
/// systemd (`LISTEN_FDS`). Only a socket the daemon bound is unlinked at shutdown.
///
/// A bound socket holds `<path>.lock` (`FileLock`) for its whole life, so that of two
/// daemons starting at once only one ever replaces a stale socket or binds the path:
/// without it, the second could find the first's socket bound but not yet listening
/// (`ECONNREFUSED`: "stale"), unlink it, and leave the first serving a socket nobody
/// can reach.
public final class UnixListener: @unchecked Sendable {
    public let fd: Int32
    /// The path to unlink at close; nil for an inherited socket.
    private let ownedPath: String?
    /// Held while `ownedPath` is ours.
    private let lock: FileLock?
    private var closed = false

    private init(fd: Int32, ownedPath: String?, lock: FileLock? = nil) {
        self.fd = fd
        self.ownedPath = ownedPath
        self.lock = lock
    }

    /// The lock file beside a socket the daemon binds.
    public static func lockPath(for path: String) -> String { path + ".lock" }

    deinit { close() }

    /// A path this process will bind, its `<path>.lock` taken: claimed first at start-up,
    /// so that a second daemon on the same path is told at once that another serves it
    /// (before it opens anything else), and bound once the daemon is ready to answer
    /// (`bind(_:mode:)`), so that a connection accepted means a daemon that serves.
    /// Dropped unbound, it releases the lock.
    public struct Claim: Sendable {
        public let path: String
        fileprivate let lock: FileLock
    }

    /// Claims `path`: makes its parent directory (0755) when missing and takes
    /// `<path>.lock`, refusing when another daemon holds it.
    public static func claim(path: String) throws(ListenerError) -> Claim {
        guard UnixSocketAddress(path: path) != nil else {
            throw .invalidPath(path, "must be 1–\(UnixSocketAddress.maxPathBytes) bytes")
        }
        try makeParentDirectory(of: path)
        let lockPath = lockPath(for: path)
        do {
            guard let taken = try FileLock.tryExclusive(path: lockPath) else { throw ListenerError.lockHeld(path, lock: lockPath) }
            return Claim(path: path, lock: taken)
        } catch let error as ListenerError {
            throw error
        } catch {
            throw .system(error as? SystemError ?? SystemError(call: "flock", errno: EIO))
        }
    }

    /// Binds `path` with `mode`: `claim(path:)`, then `bind(_:mode:)`.
    public static func bind(path: String, mode: mode_t) throws(ListenerError) -> UnixListener {
        try bind(try claim(path: path), mode: mode)
    }

    /// Binds a claimed path with `mode`: replaces a stale socket file; refuses a live
    /// socket or any other kind of file.
    ///
    /// The mode is given at bind, never set afterwards by path (`UnixSocket.bind`): a
    /// `chmod(path)` after `bind` would follow a symlink swapped into the directory
    /// meanwhile onto another file. Bind at start-up, before other threads make files.
    public static func bind(_ claim: Claim, mode: mode_t) throws(ListenerError) -> UnixListener {
        let path = claim.path
        let lock = claim.lock
        try removeStaleSocket(at: path)

        let fd: Int32
        do {
            fd = try UnixSocket.bind(path: path, nonBlocking: true, mode: mode)
        } catch {
            throw .system(error)
        }
        guard listen(fd, 128) == 0 else {
            let error = SystemError.last("listen \(path)")
            Glibc.close(fd)
            unlink(path)
            throw .system(error)
        }
        return UnixListener(fd: fd, ownedPath: path, lock: lock)
    }

    /// Adopts a socket passed by systemd: it must be a listening Unix stream socket.
    public static func inherited(fd: Int32) throws(ListenerError) -> UnixListener {
        var type: Int32 = 0
        var listening: Int32 = 0
        var domain: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0,
              getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0,
              getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &length) == 0
        else { throw .system(SystemError.last("getsockopt(LISTEN_FDS)")) }
        guard type == Int32(SOCK_STREAM.rawValue), listening == 1, domain == AF_UNIX else {
            throw .notAListeningUnixSocket(fd)
        }
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0,
              fcntl(fd, F_SETFD, FD_CLOEXEC) == 0
        else { throw .system(SystemError.last("fcntl(LISTEN_FDS)")) }
        return UnixListener(fd: fd, ownedPath: nil)
    }

    enum Accepted: Equatable {
        case accepted(Int32)
        /// Nothing pending (or the peer left before we got to it).
        case none
        /// A failure that will repeat while the listener stays readable
        /// (EMFILE, ENFILE, ENOBUFS, ENOMEM).
        case failed(Int32)
    }

    /// Accepts one pending connection, non-blocking and close-on-exec.
    func accept() -> Accepted {
        do {
            guard let client = try Syscall.nonBlocking("accept4", { CPinVaultSystem_accept(fd) }) else { return .none }
            return .accepted(client)
        } catch {
            switch error.errno {
            case EMFILE, ENFILE, ENOBUFS, ENOMEM: return .failed(error.errno)
            default: return .none  // ECONNABORTED, EPROTO…
            }
        }
    }

    /// Whether a connection waits to be accepted (a zero-timeout `poll`).
    var hasPendingConnection: Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return (try? Syscall.run("poll") { poll(&entry, 1, 0) }) ?? 0 > 0
    }

    /// Stops listening; unlinks the path only when this process bound it.
    public func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
        if let ownedPath { unlink(ownedPath) }
        // Only once the path is gone: a daemon taking the lock next finds it free.
        lock?.release()
    }

    private static func makeParentDirectory(of path: String) throws(ListenerError) {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")), slash != path.utf8.startIndex else { return }
        let parent = String(path[..<slash])
        var info = stat()
        if lstat(parent, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw .invalidPath(parent, "is not a directory") }
            return
        }
        guard errno == ENOENT else { throw .system(SystemError.last("stat \(parent)")) }
        guard mkdir(parent, 0o755) == 0 || errno == EEXIST else { throw .system(SystemError.last("mkdir \(parent)")) }
        // mkdir obeys the umask (077); the socket's directory must be searchable by all.
        guard chmod(parent, 0o755) == 0 else { throw .system(SystemError.last("chmod \(parent)")) }
    }

    /// A socket file nobody accepts on is stale and removed; a live one is an error.
    private static func removeStaleSocket(at path: String) throws(ListenerError) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return }
            throw .system(SystemError.last("stat \(path)"))
        }
        guard info.st_mode & S_IFMT == S_IFSOCK else { throw .invalidPath(path, "exists and is not a socket") }
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { throw .system(SystemError.last("socket")) }
        defer { Glibc.close(probe) }
        guard let address = UnixSocketAddress(path: path) else { throw .invalidPath(path, "too long") }
        let connected = address.withSockaddr { connect(probe, $0, $1) }
        if connected == 0 { throw .socketInUse(path) }
        guard errno == ECONNREFUSED else { throw .system(SystemError.last("connect \(path)")) }
        guard unlink(path) == 0 || errno == ENOENT else { throw .system(SystemError.last("unlink \(path)")) }
    }
}

/// Why the daemon could not listen.
public enum ListenerError: Error, CustomStringConvertible {
    case invalidPath(String, String)
    case socketInUse(String)
    /// Another daemon holds the socket's lock file: it serves (or is binding) the path.
    case lockHeld(String, lock: String)
    case notAListeningUnixSocket(Int32)
    case system(SystemError)

    public var description: String {
        switch self {
        case .invalidPath(let path, let reason): "socket path \(path): \(reason)"
        case .socketInUse(let path): "socket \(path) is in use by a running process"
        case .lockHeld(let path, let lock): "socket \(path) is in use by another process serving it (it holds \(lock))"
        case .notAListeningUnixSocket(let fd): "inherited fd \(fd) is not a listening Unix stream socket"
        case .system(let error): error.description
        }
    }
}
