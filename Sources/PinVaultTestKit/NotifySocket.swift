import Foundation
import Glibc

/// The receiving end of `sd_notify`: a bound `SOCK_DGRAM` Unix socket a test names
/// in `NOTIFY_SOCKET`, as systemd would.
public final class NotifySocket {
    public let path: String
    private let fd: Int32

    public init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestKitError("socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            Glibc.close(fd)
            throw TestKitError("path too long")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            Glibc.close(fd)
            throw TestKitError("bind \(path): errno \(code)")
        }
    }

    deinit {
        Glibc.close(fd)
        unlink(path)
    }

    /// The next datagram, or nil when none arrives within `timeout`.
    public func receive(timeout: TimeInterval) -> String? {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeout * 1000)) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n >= 0 else { return nil }
        return String(decoding: buffer[..<n], as: UTF8.self)
    }

    /// Datagrams until one contains `line` as a whole line; all of them, in order.
    /// Empty when `line` did not arrive within `timeout`.
    public func messages(until line: String, timeout: TimeInterval) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        var received: [String] = []
        while let message = receive(timeout: max(deadline.timeIntervalSinceNow, 0)) {
            received.append(message)
            if message.split(separator: "\n").contains(Substring(line)) { return received }
        }
        return []
    }
}
