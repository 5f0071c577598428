/// One ssh-agent connection driven like `VarlinkConnection`: a prebuilt request written
/// with one `send`, the reply read by its 4-byte length prefix.
final class SSHAgentConnection {
    /// `SSH2_AGENTC_REQUEST_IDENTITIES` (PROTOCOL.agent).
    static let requestIdentities: UInt8 = 11
    /// `SSH2_AGENT_IDENTITIES_ANSWER`.
    static let identitiesAnswer: UInt8 = 12
    /// The whole request: length 1, then the message type.
    static let request: [UInt8] = [0, 0, 0, 1, requestIdentities]

    private let stream: UnixStream

    init(path: String) throws {
        stream = try UnixStream(path: path)
    }

    /// The socket, for a writer thread that pipelines requests.
    var fd: Int32 { stream.fd }

    /// Writes REQUEST_IDENTITIES and reads the IDENTITIES_ANSWER.
    func roundTrip() throws {
        try stream.write(Self.request)
        try receiveAnswer()
    }

    /// `SSH2_AGENT_SIGN_RESPONSE`.
    static let signResponse: UInt8 = 14

    /// A whole SIGN_REQUEST (13) for the key blob of the raw Ed25519 `publicKey`, over
    /// `data`, flags 0.
    static func signRequest(publicKey: [UInt8], data: [UInt8]) -> [UInt8] {
        func string(_ bytes: [UInt8]) -> [UInt8] {
            [UInt8(bytes.count >> 24 & 0xff), UInt8(bytes.count >> 16 & 0xff), UInt8(bytes.count >> 8 & 0xff), UInt8(bytes.count & 0xff)] + bytes
        }
        let message = [13] + string(string(Array("ssh-ed25519".utf8)) + string(publicKey)) + string(data) + [0, 0, 0, 0]
        return string(message)
    }

    /// Writes `request` and reads one reply of type `expected`.
    func roundTrip(_ request: [UInt8], expecting expected: UInt8) throws {
        try stream.write(request)
        try receive(expecting: expected)
    }

    /// Writes `batch` (several requests back to back) without reading.
    func send(_ batch: UnsafeRawBufferPointer) throws {
        try stream.write(batch)
    }

    /// Reads one reply; throws unless it is an IDENTITIES_ANSWER.
    func receiveAnswer() throws {
        try receive(expecting: Self.identitiesAnswer)
    }

    /// Reads one reply; throws unless it is of type `expected`.
    func receive(expecting expected: UInt8) throws {
        while true {
            let unread = stream.unread
            if unread.count >= 5 {
                let length = Int(unread[0]) << 24 | Int(unread[1]) << 16 | Int(unread[2]) << 8 | Int(unread[3])
                if unread.count >= 4 + length {
                    guard length >= 1, unread[4] == expected else {
                        throw BenchError("ssh-agent answered message type \(unread[4])")
                    }
                    stream.consume(4 + length)
                    return
                }
            }
            try stream.receiveMore()
        }
    }
}
