import Foundation
import Glibc

/// Debian's sshd, really started, with its own configuration and host key in
/// `directory`: the one sshd of the OpenSSH tests (public keys from the agent) and of
/// the PAM tests (password and keyboard-interactive logins through a PAM stack).
///
/// Where it listens (`Network`): on 127.0.0.1 of this machine, or in a network
/// namespace of its own, made for it and gone with it, where a client can come from
/// an address that is not loopback. Traffic never leaves loopback.
public final class SSHServer {
    public static let binary = "/usr/sbin/sshd"

    /// Where sshd listens, and where its clients come from.
    public enum Network {
        /// 127.0.0.1 of this machine's network.
        case loopback
        /// A network namespace of its own (`unshare --net`), whose `lo` holds 127.0.0.1,
        /// `SSHServer.namespaceServerAddress` and `SSHServer.namespaceClientAddress`
        /// (TEST-NET-1, RFC 5737). sshd listens on the first two; a client run through
        /// `inNetwork` that binds the third is, to sshd, a peer that is not loopback.
        case privateNamespace
    }

    public static let namespaceServerAddress = "192.0.2.1"
    public static let namespaceClientAddress = "192.0.2.2"

    public let port: UInt16
    public let network: Network
    private let process: ChildProcess
    private let logPath: String

    /// Starts sshd and waits until it listens. `settings` replace or add
    /// `sshd_config` keywords (the defaults: public keys only, no PAM, verbose log);
    /// `pamService` names the PAM service sshd uses: OpenSSH takes its program name,
    /// so sshd runs as a link of that name in `directory` (/etc/pam.d/<pamService>).
    public init(
        directory: String,
        allowUsers: String,
        settings: [String: String] = [:],
        pamService: String? = nil,
        network: Network = .loopback
    ) throws {
        self.network = network
        let hostKey = directory + "/ssh_host_ed25519_key"
        let keygen = try Subprocess.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", hostKey], environment: [:])
        guard keygen.status == 0 else { throw TestKitError("ssh-keygen (host key) failed: \(keygen)") }
        // sshd's privilege separation directory.
        mkdir("/run/sshd", 0o755)
        port = try Self.freePort()
        let config = directory + "/sshd_config"
        try Self.configuration(port: port, hostKey: hostKey, allowUsers: allowUsers, settings: settings, network: network)
            .write(toFile: config, atomically: true, encoding: .utf8)

        var program = Self.binary
        if let pamService {
            program = directory + "/" + pamService
            guard symlink(Self.binary, program) == 0 else { throw TestKitError("symlink \(program): errno \(errno)") }
        }
        logPath = directory + "/sshd.log"
        let sshd = [program, "-D", "-e", "-f", config]
        let environment = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"]
        switch network {
        case .loopback:
            process = try ChildProcess(path: program, arguments: Array(sshd.dropFirst()), environment: environment, logPath: logPath)
        case .privateNamespace:
            // unshare and sh exec in turn, so the pid is sshd's and the namespace ends with it.
            let setUp = "ip link set lo up && ip addr add \(Self.namespaceServerAddress)/32 dev lo && "
                + "ip addr add \(Self.namespaceClientAddress)/32 dev lo && exec \"$0\" \"$@\""
            process = try ChildProcess(path: "/usr/bin/unshare", arguments: ["--net", "--", "/bin/sh", "-c", setUp] + sshd,
                                       environment: environment, logPath: logPath)
        }
        try waitUntilListening()
    }

    deinit {
        process.stop(timeout: 10)
    }

    /// What sshd logged (-e: to stderr).
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// The addresses sshd listens on.
    public var addresses: [String] {
        switch network {
        case .loopback: ["127.0.0.1"]
        case .privateNamespace: ["127.0.0.1", Self.namespaceServerAddress]
        }
    }

    /// `command` run in sshd's network (through nsenter in a private namespace).
    public func inNetwork(_ command: [String]) -> [String] {
        switch network {
        case .loopback: command
        case .privateNamespace: ["/usr/bin/nsenter", "--net=/proc/\(process.pid)/ns/net", "--"] + command
        }
    }

    private static func configuration(
        port: UInt16, hostKey: String, allowUsers: String, settings: [String: String], network: Network
    ) -> String {
        var lines: [(String, String)] = [
            ("Port", "\(port)"), ("HostKey", hostKey), ("PidFile", "none"), ("UsePAM", "no"), ("StrictModes", "no"),
            ("AllowUsers", allowUsers), ("PermitRootLogin", "no"), ("PubkeyAuthentication", "yes"),
            ("PasswordAuthentication", "no"), ("KbdInteractiveAuthentication", "no"), ("X11Forwarding", "no"),
            ("AllowAgentForwarding", "no"), ("PrintMotd", "no"), ("LogLevel", "VERBOSE"),
        ]
        lines = lines.map { ($0.0, settings[$0.0] ?? $0.1) }
        lines += settings.keys.sorted().filter { key in !lines.contains { $0.0 == key } }.map { ($0, settings[$0] ?? "") }
        let listen: [String] = switch network {
        case .loopback: ["127.0.0.1"]
        case .privateNamespace: ["127.0.0.1", namespaceServerAddress]
        }
        return (listen.map { "ListenAddress \($0)" } + lines.map { "\($0.0) \($0.1)" }).joined(separator: "\n") + "\n"
    }

    /// Until sshd says it listens on each address (it logs that once bound, in any network).
    private func waitUntilListening() throws {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            guard process.isRunning else { throw TestKitError("sshd exited with \(process.exitStatus ?? -1):\n\(log)") }
            let text = log
            if addresses.allSatisfy({ text.contains("Server listening on \($0) port \(port).") }) { return }
            usleep(20_000)
        }
        throw TestKitError("sshd did not listen within 20 s:\n\(log)")
    }

    /// A port on 127.0.0.1 that nobody listens on (bound and released at once).
    public static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestKitError("socket: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
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
}
