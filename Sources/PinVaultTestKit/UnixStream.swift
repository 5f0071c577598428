import Glibc
import PinVaultSystem

/// A blocking `SOCK_STREAM` connection to a Unix socket path, with a receive buffer:
/// the one transport of the test clients and of the benchmark's clients, Varlink and
/// ssh-agent alike, so that both pay the same client cost: one `send` per request or
/// batch, `recv` into a buffer that grows only when a reply does not fit, nothing
/// allocated per call.
public final class UnixStream {
    public let fd: Int32
    /// Bytes received and not yet consumed live in `buffer[start..<filled]`.
    private var buffer: UnsafeMutableRawBufferPointer
    private var start = 0
    private var filled = 0
    private let maximumBufferSize: Int

    /// Connects to `path`; a receive times out after `timeoutSeconds`. The buffer
    /// starts at `bufferSize` bytes and doubles, up to `maximumBufferSize`, for a reply
    /// that does not fit.
    public init(path: String, timeoutSeconds: Int = 30, bufferSize: Int = 64 << 10, maximumBufferSize: Int = 64 << 20) throws {
        do {
            fd = try UnixSocket.connect(path: path)
        } catch {
            throw TestKitError("connect \(path): \(error)")
        }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bufferSize, 1), alignment: 16)
        self.maximumBufferSize = maximumBufferSize
    }

    deinit {
        close(fd)
        buffer.deallocate()
    }

    /// Writes all of `bytes`.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        try Self.write(bytes, to: fd)
    }

    /// Writes all of `bytes`.
    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Writes all of `bytes` to the stream socket `fd` (for a writer thread that
    /// pipelines requests while another reads the replies).
    public static func write(_ bytes: UnsafeRawBufferPointer, to fd: Int32) throws {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let sent: Int
            do {
                sent = try Syscall.run("send") { send(fd, base + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            } catch {
                throw TestKitError("\(error)")
            }
            guard sent > 0 else { throw TestKitError("send: no progress") }
            offset += sent
        }
    }

    /// The bytes received and not yet consumed.
    public var unread: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: buffer[start..<filled])
    }

    /// Marks `count` bytes of `unread` as consumed.
    public func consume(_ count: Int) {
        start += count
        if start == filled {
            start = 0
            filled = 0
        }
    }

    /// Receives more bytes after `unread`, moving it to the front (or into a larger
    /// buffer) when the buffer's end is reached. Throws at EOF, on a timeout, or when
    /// `unread` would outgrow `maximumBufferSize`.
    public func receiveMore() throws {
        if filled == buffer.count {
            try makeRoom()
        }
        guard let base = buffer.baseAddress else { throw TestKitError("no receive buffer") }
        let received: Int
        do {
            received = try Syscall.run("recv") { recv(fd, base + filled, buffer.count - filled, 0) }
        } catch where error.errno == EAGAIN {
            throw TestKitError("recv: no reply within the receive timeout")
        } catch {
            throw TestKitError("\(error)")
        }
        if received == 0 { throw TestKitError("connection closed by the daemon") }
        filled += received
    }

    private func makeRoom() throws {
        let remaining = filled - start
        if start > 0, let base = buffer.baseAddress {
            base.copyMemory(from: base + start, byteCount: remaining)
        } else {
            guard buffer.count * 2 <= maximumBufferSize else {
                throw TestKitError("reply larger than \(maximumBufferSize) bytes")
            }
            let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: buffer.count * 2, alignment: 16)
            larger.copyMemory(from: UnsafeRawBufferPointer(buffer))
            buffer.deallocate()
            buffer = larger
        }
        start = 0
        filled = remaining
    }

    /// Sends end-of-file but keeps reading.
    public func shutdownWriting() { shutdown(fd, Int32(SHUT_WR)) }

    /// Shuts both directions down (the descriptor is closed on release).
    public func shutdownBoth() { shutdown(fd, Int32(SHUT_RDWR)) }

    /// True when the peer closed the connection within `timeout` seconds: EOF, or a
    /// reset (closing a socket with unread input makes the kernel send RST, not FIN).
    public func isClosedByPeer(timeout: Double) -> Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeout * 1000)) > 0 else { return false }
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_PEEK))
        return n == 0 || (n < 0 && errno == ECONNRESET)
    }
}
