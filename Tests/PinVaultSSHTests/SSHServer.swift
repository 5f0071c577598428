import Foundation
import Glibc
import PinVaultTestKit

/// Debian's sshd on 127.0.0.1 and a free port, with its own configuration and host
/// key in `directory`, letting in only `user` by public key from `authorizedKeys`.
final class SSHServer {
    static let binary = "/usr/sbin/sshd"

    let port: UInt16
    private let process: Spawned

    init(directory: String, user: String, authorizedKeys: String) throws {
        let hostKey = directory + "/ssh_host_ed25519_key"
        let keygen = try Spawned.run(["/usr/bin/ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", hostKey], environment: [:])
        guard keygen.status == 0 else { throw TestKitError("ssh-keygen (host key) failed: \(keygen)") }
        // sshd's privilege separation directory.
        mkdir("/run/sshd", 0o755)
        port = try Self.freePort()
        let config = directory + "/sshd_config"
        try """
            Port \(port)
            ListenAddress 127.0.0.1
            HostKey \(hostKey)
            PidFile none
            UsePAM no
            StrictModes no
            AuthorizedKeysFile \(authorizedKeys)
            AllowUsers \(user)
            PermitRootLogin no
            PubkeyAuthentication yes
            PasswordAuthentication no
            KbdInteractiveAuthentication no
            X11Forwarding no
            AllowAgentForwarding no
            PrintMotd no
            LogLevel VERBOSE

            """.write(toFile: config, atomically: true, encoding: .utf8)
        process = try Spawned([Self.binary, "-D", "-e", "-f", config], environment: ["PATH": "/usr/bin:/bin"])
        try waitUntilListening()
    }

    deinit {
        if process.isRunning {
            kill(process.pid, SIGTERM)
            process.waitUntilExit(timeout: 10)
        }
    }

    /// What sshd logged (-e: to stderr).
    var log: String { process.standardError }

    private func waitUntilListening() throws {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            guard process.isRunning else { throw TestKitError("sshd exited with \(process.status ?? -1):\n\(log)") }
            if Self.connects(port: port) { return }
            usleep(20_000)
        }
        throw TestKitError("sshd did not listen within 20 s:\n\(log)")
    }

    /// A port on 127.0.0.1 that nobody listens on (bound and released at once).
    static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestKitError("socket: errno \(errno)") }
        defer { close(fd) }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw TestKitError("bind: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return UInt16(bigEndian: address.sin_port)
    }

    private static func connects(port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        return address
    }
}
