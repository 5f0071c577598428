import Foundation
import Glibc
import PinVaultCrypto
import PinVaultProtocol

/// A blocking Varlink client over a `UnixStream`, for tests and benchmarks. Two ways
/// to use it: JSON in and out through Foundation (`call`, `send`, `receive`), or raw
/// (`request` builds a call's bytes once with the protocol's writer; `roundTrip`,
/// `call(_:_:)` and `receiveReply` read a reply up to its NUL without parsing it),
/// so that a timed loop allocates nothing per call. Test code may hold PINs in
/// Strings; the daemon may not.
public final class VarlinkClient {
    private let stream: UnixStream

    /// The socket.
    public var fd: Int32 { stream.fd }

    public init(socketPath: String, timeoutSeconds: Int = 30) throws {
        stream = try UnixStream(path: socketPath, timeoutSeconds: timeoutSeconds)
    }

    public func close() { stream.shutdownBoth() }

    /// Sends EOF but keeps reading, as `socat` does once its input ends.
    public func shutdownWriting() { stream.shutdownWriting() }

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

    /// Sends bytes as they are (malformed frames, split frames, prebuilt calls).
    public func send(raw bytes: [UInt8]) throws {
        try stream.write(bytes)
    }

    /// Sends bytes as they are, in one `send` when the socket takes them (a batch of
    /// calls back to back).
    public func send(raw bytes: UnsafeRawBufferPointer) throws {
        try stream.write(bytes)
    }

    /// Reads one reply.
    public func receive() throws -> VarlinkResponse {
        try receiveReply { try VarlinkResponse(frame: Array($0)) }
    }

    /// True when the daemon closed the connection within `timeout`: EOF, or a reset
    /// (closing a socket with unread input makes the kernel send RST instead of FIN).
    public func isClosedByPeer(timeout: TimeInterval = 5) -> Bool {
        stream.isClosedByPeer(timeout: timeout)
    }

    /// Bytes this client wrote that the daemon has not read yet (a Unix stream socket's
    /// SIOCOUTQ, which is TIOCOUTQ, 0x5411); -1 when the ioctl fails. Zero means the
    /// daemon's loop has read every call sent, and so handed over each whole one.
    public var unreadByPeer: Int32 {
        var queued: Int32 = 0
        return ioctl(fd, 0x5411, &queued) == 0 ? queued : -1
    }

    // MARK: Raw calls

    /// The bytes of one call to `method` (its full name), JSON and NUL, built once with
    /// the protocol's writer.
    public static func request(_ method: String, _ parameters: (inout JSONObjectWriter) -> Void = { _ in }) -> [UInt8] {
        let buffer = ReplyBuffer(capacity: 256)
        VarlinkCall.append(method: method, to: buffer, parameters)
        return buffer.copyBytes()
    }

    /// Writes `request` and reads its reply; throws when the reply is an error.
    public func roundTrip(_ request: [UInt8]) throws {
        try stream.write(request)
        try receiveSuccess()
    }

    /// Writes `request`, then calls `body` with the reply (NUL excluded), valid only
    /// inside `body`.
    public func call<T>(_ request: [UInt8], _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
        try stream.write(request)
        return try receiveReply(body)
    }

    /// Reads one reply and passes it (NUL excluded) to `body`, unparsed.
    public func receiveReply<T>(_ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
        while true {
            let unread = stream.unread
            if let base = unread.baseAddress, let nul = memchr(base, 0, unread.count) {
                let length = base.distance(to: UnsafeRawPointer(nul))
                let result = try body(UnsafeRawBufferPointer(start: base, count: length))
                stream.consume(length + 1)
                return result
            }
            try stream.receiveMore()
        }
    }

    /// Reads one reply and throws when it is an error.
    public func receiveSuccess() throws {
        try receiveReply { reply in
            if Self.isError(reply) { throw TestKitError("error reply: \(String(decoding: reply, as: UTF8.self))") }
        }
    }

    private static let errorKey = Array("\"error\"".utf8)

    /// True when the reply holds an `"error"` member (no reply PinVault sends carries
    /// that text in a value): each `"` found by `memchr` is compared with the key.
    public static func isError(_ reply: UnsafeRawBufferPointer) -> Bool {
        guard let base = reply.baseAddress else { return false }
        let end = base + reply.count
        var cursor = base
        while cursor < end, let quote = memchr(cursor, Int32(UInt8(ascii: "\"")), cursor.distance(to: end)) {
            let found = UnsafeRawPointer(quote)
            if found.distance(to: end) >= errorKey.count,
               errorKey.indices.allSatisfy({ found.load(fromByteOffset: $0, as: UInt8.self) == errorKey[$0] }) {
                return true
            }
            cursor = found + 1
        }
        return false
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
