import Glibc

/// The path a listening Unix socket is bound to (`getsockname`), for telling apart the
/// sockets systemd passes: one socket unit gives all its sockets one
/// `FileDescriptorName=`, so when pinvaultd.socket lists both, the agent's is the one
/// bound to `ssh_agent.socket_path`. Nil for an unnamed or abstract socket.
enum InheritedSocketPath {
    static func of(_ fd: Int32) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0, address.sun_family == sa_family_t(AF_UNIX) else { return nil }
        let pathBytes = Int(length) - MemoryLayout<sa_family_t>.size
        guard pathBytes > 0 else { return nil }
        return withUnsafeBytes(of: address.sun_path) { raw in
            let bytes = raw.prefix(min(pathBytes, raw.count))
            guard bytes.first != 0 else { return nil }  // abstract
            return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
