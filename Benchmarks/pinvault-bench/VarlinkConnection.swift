import Glibc
import PinVaultCrypto
import PinVaultProtocol

/// One Varlink connection driven the plainest way: a prebuilt call written with one
/// `send`, the reply read up to its NUL. No JSON is parsed on the timed path; `isError`
/// only looks for the `"error"` member.
final class VarlinkConnection {
    private let stream: UnixStream

    init(path: String) throws {
        stream = try UnixStream(path: path)
    }

    /// The socket, for a writer thread that pipelines requests.
    var fd: Int32 { stream.fd }

    /// The bytes of one call (JSON and its NUL), built once with the protocol's writer.
    static func request(_ method: String, _ parameters: (inout JSONObjectWriter) -> Void = { _ in }) -> [UInt8] {
        let buffer = ReplyBuffer(capacity: 256)
        VarlinkCall.append(method: VaultCalls.interface + "." + method, to: buffer, parameters)
        return buffer.copyBytes()
    }

    /// Writes `request` and reads its reply; throws when the reply is an error.
    func roundTrip(_ request: [UInt8]) throws {
        try stream.write(request)
        try receiveReply { reply in
            if Self.isError(reply) { throw BenchError("error reply: \(String(decoding: reply, as: UTF8.self))") }
        }
    }

    /// Writes `request`, then calls `body` with the reply (NUL excluded), valid only
    /// inside `body`.
    func call<T>(_ request: [UInt8], _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
        try stream.write(request)
        return try receiveReply(body)
    }

    /// Writes `batch` (several calls back to back) without reading.
    func send(_ batch: UnsafeRawBufferPointer) throws {
        try stream.write(batch)
    }

    /// Reads one reply and passes it (NUL excluded) to `body`.
    func receiveReply<T>(_ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
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
    func receiveSuccess() throws {
        try receiveReply { reply in
            if Self.isError(reply) { throw BenchError("error reply: \(String(decoding: reply, as: UTF8.self))") }
        }
    }

    private static let errorKey = Array("\"error\"".utf8)

    /// True when the reply holds an `"error"` member (no reply PinVault sends carries
    /// that text in a value): each `"` found by `memchr` is compared with the key.
    static func isError(_ reply: UnsafeRawBufferPointer) -> Bool {
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
