import Foundation
import Glibc
import PinVaultSystem

/// The receiving end of `sd_notify`: a bound `SOCK_DGRAM` Unix socket a test names
/// in `NOTIFY_SOCKET`, as systemd would.
public final class NotifySocket {
    public let path: String
    private let fd: Int32

    public init(path: String) throws {
        self.path = path
        do {
            fd = try UnixSocket.bind(path: path, type: SOCK_DGRAM)
        } catch {
            throw TestKitError("\(error)")
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
