import Glibc
import PinVaultSystem

/// systemd socket activation (`sd_listen_fds`): the sockets passed as fds 3…,
/// when `LISTEN_PID` names this process. The variables are removed so children
/// never inherit them.
public enum SocketActivation {
    static let firstDescriptor: Int32 = 3

    /// Whether systemd passed this process sockets (without taking them, unlike
    /// `inheritedDescriptors`).
    public static var isActive: Bool {
        guard let pidText = ProcessEnvironment.value("LISTEN_PID"), let pid = Int32(pidText), pid == getpid(),
              let countText = ProcessEnvironment.value("LISTEN_FDS"), let count = Int32(countText)
        else { return false }
        return count > 0
    }

    public static func inheritedDescriptors() -> [Int32] {
        defer {
            unsetenv("LISTEN_PID")
            unsetenv("LISTEN_FDS")
            unsetenv("LISTEN_FDNAMES")
        }
        guard let pidText = ProcessEnvironment.value("LISTEN_PID"), let pid = Int32(pidText), pid == getpid(),
              let countText = ProcessEnvironment.value("LISTEN_FDS"), let count = Int32(countText), count > 0, count < 64
        else { return [] }
        return (0..<count).map { firstDescriptor + $0 }
    }
}
