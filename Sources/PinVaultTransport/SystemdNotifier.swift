import Glibc
import PinVaultSystem

/// `sd_notify` without libsystemd: one datagram to `$NOTIFY_SOCKET` per message
/// (a path, or an abstract name written with a leading `@`). Silent when the daemon
/// does not run under systemd.
public final class SystemdNotifier: @unchecked Sendable {
    private let socketPath: String?
    /// Half of `WATCHDOG_USEC`, when the watchdog is armed for this process.
    public let watchdogInterval: Int64?

    public init() {
        socketPath = ProcessEnvironment.value("NOTIFY_SOCKET")
        if let usecText = ProcessEnvironment.value("WATCHDOG_USEC"), let usec = Int64(usecText), usec > 0,
           ProcessEnvironment.value("WATCHDOG_PID").map({ Int32($0) == getpid() }) ?? true
        {
            watchdogInterval = max(usec / 2, 1000)
        } else {
            watchdogInterval = nil
        }
        unsetenv("NOTIFY_SOCKET")
        unsetenv("WATCHDOG_USEC")
        unsetenv("WATCHDOG_PID")
    }

    public func ready(status: String) { send("READY=1\nSTATUS=\(status)") }
    public func status(_ status: String) { send("STATUS=\(status)") }
    public func stopping(status: String) { send("STOPPING=1\nSTATUS=\(status)") }
    public func watchdog() { send("WATCHDOG=1") }

    private func send(_ message: String) {
        guard let socketPath, !socketPath.isEmpty else { return }
        var pathBytes = Array(socketPath.utf8)
        if pathBytes.first == UInt8(ascii: "@") { pathBytes[0] = 0 }
        guard let address = UnixSocketAddress(pathBytes) else { return }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let payload = Array(message.utf8)
        _ = address.withSockaddr { addr, length in
            payload.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), addr, length) }
        }
    }
}
