import Glibc

/// A blocking `SOCK_STREAM` connection to a Unix socket path, with a receive buffer.
///
/// The one transport of every client in this benchmark, Varlink and ssh-agent alike,
/// so that both pay the same client cost: one `send` per request batch, `recv` into
/// a fixed buffer, no allocation per call.
final class UnixStream {
    let fd: Int32
    /// Bytes received and not yet consumed live in `buffer[start..<filled]`.
    private(set) var buffer: UnsafeMutableRawBufferPointer
    private(set) var start = 0
    private(set) var filled = 0

    /// Connects to `path`; receives time out after `timeoutSeconds`.
    init(path: String, timeoutSeconds: Int = 120, bufferSize: Int = 1 << 20) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.fd = fd
        guard fd >= 0 else { throw BenchError.system("socket") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            throw BenchError("socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw BenchError.system("connect \(path)", code)
        }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 16)
    }

    deinit {
        close(fd)
        buffer.deallocate()
    }

    /// Writes all of `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let n = send(fd, base + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw BenchError.system("send") }
            offset += n
        }
    }

    /// Writes all of `bytes`.
    func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// The bytes received and not yet consumed.
    var unread: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: buffer[start..<filled])
    }

    /// Marks `count` bytes of `unread` as consumed.
    func consume(_ count: Int) {
        start += count
        if start == filled {
            start = 0
            filled = 0
        }
    }

    /// Receives more bytes after `unread` (moving it to the front when the buffer's end
    /// is reached). Throws at EOF, on a timeout, or when `unread` fills the buffer.
    func receiveMore() throws {
        if filled == buffer.count {
            guard start > 0 else { throw BenchError("reply larger than \(buffer.count) bytes") }
            let remaining = filled - start
            if let base = buffer.baseAddress {
                base.copyMemory(from: base + start, byteCount: remaining)
            }
            start = 0
            filled = remaining
        }
        guard let base = buffer.baseAddress else { throw BenchError("no receive buffer") }
        while true {
            let n = recv(fd, base + filled, buffer.count - filled, 0)
            if n < 0 && errno == EINTR { continue }
            if n == 0 { throw BenchError("the server closed the connection") }
            guard n > 0 else { throw BenchError.system("recv") }
            filled += n
            return
        }
    }
}
