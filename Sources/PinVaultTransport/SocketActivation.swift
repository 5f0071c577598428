import Glibc
import PinVaultSystem

/// systemd socket activation (`sd_listen_fds_with_names`): the sockets passed as fds
/// 3…, when `LISTEN_PID` names this process, with the names the socket unit gave them
/// (`FileDescriptorName=`, in `LISTEN_FDNAMES`). The variables are removed so children
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

    /// One inherited socket and its name (nil when systemd passed none, or
    /// `unknown`, its name for a socket without `FileDescriptorName=`).
    public struct InheritedSocket: Equatable, Sendable {
        public let fd: Int32
        public let name: String?
    }

    public static func inheritedSockets() -> [InheritedSocket] {
        defer {
            unsetenv("LISTEN_PID")
            unsetenv("LISTEN_FDS")
            unsetenv("LISTEN_FDNAMES")
        }
        guard let pidText = ProcessEnvironment.value("LISTEN_PID"), let pid = Int32(pidText), pid == getpid(),
              let countText = ProcessEnvironment.value("LISTEN_FDS"), let count = Int32(countText), count > 0, count < 64
        else { return [] }
        let names = ProcessEnvironment.value("LISTEN_FDNAMES")?
            .split(separator: ":", omittingEmptySubsequences: false).map(String.init) ?? []
        return (0..<count).map { index in
            let name = Int(index) < names.count ? names[Int(index)] : nil
            return InheritedSocket(fd: firstDescriptor + index, name: name == "unknown" || name == "" ? nil : name)
        }
    }

    public static func inheritedDescriptors() -> [Int32] {
        inheritedSockets().map(\.fd)
    }
}
