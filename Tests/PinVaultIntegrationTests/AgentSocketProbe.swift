import Foundation
import Glibc
import PinVaultTestKit

/// A raw client of pinvaultd's ssh-agent socket: one length-prefixed message out, one
/// reply frame back.
struct AgentSocketProbe {
    /// REQUEST_IDENTITIES's reply frame, or nil when the socket did not answer.
    static func requestIdentities(at path: String) throws -> [UInt8]? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestKitError("socket: errno \(errno)") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { throw TestKitError("connect \(path): errno \(errno)") }
        let request: [UInt8] = [0, 0, 0, 1, 11]
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == request.count else { return nil }
        var reply = [UInt8](repeating: 0, count: 4096)
        let count = reply.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Array(reply.prefix(count))
    }
}
