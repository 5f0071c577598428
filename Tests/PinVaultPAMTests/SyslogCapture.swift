import Foundation
import Glibc
import PinVaultTestKit

/// Collects what is sent to syslog while it runs, by serving `/dev/log` itself. Only
/// where no syslog daemon owns `/dev/log` (as in CI's container): a real one is never
/// displaced, and `start()` then returns nil.
final class SyslogCapture: @unchecked Sendable {
    static let path = "/dev/log"
    private let fd: Int32
    private let lock = NSLock()
    private var messages: [String] = []
    private var stopping = false
    private let finished = DispatchSemaphore(value: 0)

    static func start() throws -> SyslogCapture? {
        guard access(path, F_OK) != 0 else { return nil }
        return try SyslogCapture()
    }

    private init() throws {
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestKitError("socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(Self.path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, chmod(Self.path, 0o666) == 0 else {
            Glibc.close(fd)
            throw TestKitError("cannot serve \(Self.path): errno \(errno)")
        }
        Thread { [self] in receive() }.start()
    }

    private func receive() {
        defer { finished.signal() }
        var buffer = [UInt8](repeating: 0, count: 8192)
        while !lock.withLock({ stopping }) {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 50) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { continue }
            let message = String(decoding: buffer[..<count], as: UTF8.self)
            lock.withLock { messages.append(message) }
        }
    }

    /// Stops, removes `/dev/log`, and returns every message received.
    func stop() -> [String] {
        lock.withLock { stopping = true }
        finished.wait()
        Glibc.close(fd)
        unlink(Self.path)
        return lock.withLock { messages }
    }
}
