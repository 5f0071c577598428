import PinVaultCrypto
import PinVaultSSHProtocol

/// A raw client of an ssh-agent socket (PROTOCOL.agent: a 4-byte big-endian length,
/// then the message) over `UnixStream`: the tests' client of pinvaultd's agent socket
/// and the benchmark's of both agents. Requests are prebuilt bytes written with one
/// `send`; replies are read by their length prefix, without allocating on the
/// benchmark's path (`receive(expecting:)`).
public final class SSHAgentClient {
    /// `SSH2_AGENTC_REQUEST_IDENTITIES`.
    public static let requestIdentities: UInt8 = 11
    /// `SSH2_AGENT_IDENTITIES_ANSWER`.
    public static let identitiesAnswer: UInt8 = 12
    /// `SSH2_AGENTC_SIGN_REQUEST`.
    public static let signRequest: UInt8 = 13
    /// `SSH2_AGENT_SIGN_RESPONSE`.
    public static let signResponse: UInt8 = 14
    /// `SSH_AGENT_FAILURE`.
    public static let failure: UInt8 = 5

    /// The whole REQUEST_IDENTITIES message: length 1, then the type.
    public static let identitiesRequest: [UInt8] = [0, 0, 0, 1, requestIdentities]
    /// The whole answer of an agent that holds no key: IDENTITIES_ANSWER, count 0.
    public static let noIdentities: [UInt8] = [0, 0, 0, 5, identitiesAnswer, 0, 0, 0, 0]
    /// The whole SSH_AGENT_FAILURE reply.
    public static let failureReply: [UInt8] = [0, 0, 0, 1, failure]

    private let stream: UnixStream

    public init(path: String, timeoutSeconds: Int = 30) throws {
        stream = try UnixStream(path: path, timeoutSeconds: timeoutSeconds)
    }

    /// The socket, for a writer thread that pipelines requests.
    public var fd: Int32 { stream.fd }

    /// A whole SIGN_REQUEST for the key blob of the raw `publicKey` of `algorithm`, over
    /// `data`, with `flags`.
    public static func signRequest(
        publicKey: [UInt8], algorithm: KeyAlgorithm = .ed25519, data: [UInt8], flags: UInt32 = 0
    ) -> [UInt8] {
        let blob = SSHKey(algorithm: algorithm, publicKey: publicKey).blob
        return string([signRequest] + string(blob) + string(data) + uint32(flags))
    }

    /// What ssh asks an agent to sign to log `user` in with the key `publicKey` of
    /// `algorithm` (RFC 4252 §7), in a session whose identifier is `session`: the only
    /// data, beside an SSHSIG preimage, that an agent signs with a PinVault key.
    public static func userauthRequest(
        publicKey: [UInt8], algorithm: KeyAlgorithm = .ed25519, user: String = "alice",
        session: [UInt8] = Array(repeating: 7, count: 32)
    ) -> [UInt8] {
        SSHSignedData.UserauthRequest(
            sessionIdentifier: session, user: Array(user.utf8), service: Array("ssh-connection".utf8),
            method: Array("publickey".utf8), algorithm: Array(algorithm.sshName.utf8),
            keyBlob: SSHKey(algorithm: algorithm, publicKey: publicKey).blob, hostKeyBlob: nil
        ).encoded
    }

    /// What `ssh-keygen -Y sign -n namespace` asks an agent to sign (PROTOCOL.sshsig):
    /// SHA-512 of the message is `hash`.
    public static func sshsigPreimage(namespace: String = "git", hash: [UInt8] = Array(repeating: 5, count: 64)) -> [UInt8] {
        SSHSignedData.SSHSIGPreimage(
            namespace: Array(namespace.utf8), reserved: [], hashAlgorithm: Array("sha512".utf8), hash: hash
        ).encoded
    }

    /// `bytes` as an SSH string: its 4-byte big-endian length, then the bytes.
    public static func string(_ bytes: [UInt8]) -> [UInt8] {
        uint32(UInt32(bytes.count)) + bytes
    }

    private static func uint32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24 & 0xff), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }

    /// Writes all of `bytes` (one or several messages, or a part of one).
    public func send(_ bytes: [UInt8]) throws {
        try stream.write(bytes)
    }

    /// Writes all of `bytes` (several requests back to back) without reading.
    public func send(_ bytes: UnsafeRawBufferPointer) throws {
        try stream.write(bytes)
    }

    /// Writes REQUEST_IDENTITIES and reads the IDENTITIES_ANSWER.
    public func roundTrip() throws {
        try roundTrip(Self.identitiesRequest, expecting: Self.identitiesAnswer)
    }

    /// Writes `request` and reads one reply of type `expected`.
    public func roundTrip(_ request: [UInt8], expecting expected: UInt8) throws {
        try stream.write(request)
        try receive(expecting: expected)
    }

    /// Reads one reply; throws unless it is an IDENTITIES_ANSWER.
    public func receiveAnswer() throws {
        try receive(expecting: Self.identitiesAnswer)
    }

    /// Reads one reply and drops it; throws unless it is of type `expected`.
    public func receive(expecting expected: UInt8) throws {
        let length = try nextFrameLength()
        let type = stream.unread[4]
        stream.consume(4 + length)
        guard type == expected else { throw TestKitError("the agent answered message type \(type), not \(expected)") }
    }

    /// The next whole reply frame, its length included. Throws at EOF or a timeout.
    public func receiveFrame() throws -> [UInt8] {
        let length = try nextFrameLength()
        let frame = Array(stream.unread.prefix(4 + length))
        stream.consume(4 + length)
        return frame
    }

    /// True when the agent closed the connection within `timeout` seconds.
    public func isClosedByPeer(timeout: Double = 10) -> Bool {
        stream.isClosedByPeer(timeout: timeout)
    }

    /// Receives until a whole frame is unread; its message length (at least 1).
    private func nextFrameLength() throws -> Int {
        while true {
            let unread = stream.unread
            if unread.count >= 4 {
                let length = Int(unread[0]) << 24 | Int(unread[1]) << 16 | Int(unread[2]) << 8 | Int(unread[3])
                guard length >= 1 else { throw TestKitError("the agent sent an empty message") }
                if unread.count >= 4 + length { return length }
            }
            try stream.receiveMore()
        }
    }
}
