import Foundation
import Glibc

/// A blocking Varlink client for tests: JSON in, JSON out, over a Unix socket.
/// Test code may hold PINs in Strings; the daemon may not.
public final class VarlinkClient {
    public let fd: Int32
    private var buffer: [UInt8] = []

    public init(socketPath: String, timeoutSeconds: Int = 30) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestKitError("socket: \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(socketPath.utf8)
        guard path.count < MemoryLayout.size(ofValue: address.sun_path) else { throw TestKitError("path too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.enumerated() { raw[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(fd)
            throw TestKitError("connect \(socketPath): errno \(code)")
        }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { Glibc.close(fd) }

    public func close() { shutdown(fd, Int32(SHUT_RDWR)) }

    /// Sends EOF but keeps reading, as `socat` does once its input ends.
    public func shutdownWriting() { shutdown(fd, Int32(SHUT_WR)) }

    /// One call and its reply.
    public func call(_ method: String, _ parameters: [String: Any] = [:]) throws -> VarlinkResponse {
        try send(method, parameters)
        return try receive()
    }

    /// Sends a call without waiting (for pipelining and `oneway`).
    public func send(_ method: String, _ parameters: [String: Any] = [:], oneway: Bool = false) throws {
        var message: [String: Any] = ["method": method]
        if !parameters.isEmpty { message["parameters"] = parameters }
        if oneway { message["oneway"] = true }
        var bytes = [UInt8](try JSONSerialization.data(withJSONObject: message))
        bytes.append(0)
        try send(raw: bytes)
    }

    /// Sends bytes as they are (malformed frames, split frames).
    public func send(raw bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw TestKitError("send: errno \(errno)") }
            offset += n
        }
    }

    /// Reads one reply.
    public func receive() throws -> VarlinkResponse {
        while true {
            if let nul = buffer.firstIndex(of: 0) {
                let frame = Array(buffer[..<nul])
                buffer.removeSubrange(...nul)
                return try VarlinkResponse(frame: frame)
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { throw TestKitError("connection closed by the daemon") }
            if n < 0 { throw TestKitError("recv: errno \(errno)") }
            buffer += chunk[..<n]
        }
    }

    /// True when the daemon closed the connection within `timeout`: EOF, or a reset
    /// (closing a socket with unread input makes the kernel send RST instead of FIN).
    public func isClosedByPeer(timeout: TimeInterval = 5) -> Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeout * 1000)) > 0 else { return false }
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_PEEK))
        return n == 0 || (n < 0 && errno == ECONNRESET)
    }
}

/// One Varlink reply.
public struct VarlinkResponse: CustomStringConvertible {
    public let error: String?
    public let parameters: [String: Any]
    public let raw: String

    /// Parses one reply frame (the bytes before its NUL).
    public init(frame: [UInt8]) throws {
        raw = String(decoding: frame, as: UTF8.self)
        guard let object = try JSONSerialization.jsonObject(with: Data(frame)) as? [String: Any] else {
            throw TestKitError("reply is not an object: \(raw)")
        }
        error = object["error"] as? String
        parameters = object["parameters"] as? [String: Any] ?? [:]
    }

    public subscript(key: String) -> Any? { parameters[key] }
    public func string(_ key: String) -> String? { parameters[key] as? String }
    public func int(_ key: String) -> Int? { (parameters[key] as? NSNumber)?.intValue }
    public func bool(_ key: String) -> Bool? { (parameters[key] as? NSNumber)?.boolValue }
    public func object(_ key: String) -> [String: Any]? { parameters[key] as? [String: Any] }
    public func strings(_ key: String) -> [String]? { parameters[key] as? [String] }

    /// The short error name: "WrongPin" for "io.pinvault.Vault.WrongPin".
    public var errorName: String? { error.map { String($0.split(separator: ".").last ?? "") } }
    public var description: String { raw }
}
