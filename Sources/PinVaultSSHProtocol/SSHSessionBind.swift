/// The contents of OpenSSH's `session-bind@openssh.com` extension (PROTOCOL.agent §1,
/// "binding sessions"): after each key exchange ssh tells its agent which host it
/// talks to and whether this agent connection is a forwarded one.
///
///     string  hostkey             the server's host key blob
///     string  session identifier  the exchange hash of the connection's first key exchange
///     string  signature           the host key's signature over the session identifier
///     bool    is_forwarding       this agent connection was opened for a forwarded agent
public struct SSHSessionBind: Equatable, Sendable {
    public var hostKeyBlob: [UInt8]
    public var sessionIdentifier: [UInt8]
    public var signatureBlob: [UInt8]
    public var isForwarding: Bool

    /// The extension's name.
    public static let name = "session-bind@openssh.com"
    /// OpenSSH's `AGENT_MAX_SID_LEN`: a longer session identifier is refused.
    public static let maxSessionIdentifierBytes = 128
    /// The largest host key or signature blob read (an RSA key of 16384 bits is 2 KiB).
    public static let maxBlobBytes = 8192

    public init(hostKeyBlob: [UInt8], sessionIdentifier: [UInt8], signatureBlob: [UInt8], isForwarding: Bool) {
        self.hostKeyBlob = hostKeyBlob
        self.sessionIdentifier = sessionIdentifier
        self.signatureBlob = signatureBlob
        self.isForwarding = isForwarding
    }

    /// Parses the extension's contents (what follows its name); every field must be
    /// there, within its bound, and nothing after them.
    public static func parse(_ contents: UnsafeRawBufferPointer) throws(SSHAgentMessageError) -> SSHSessionBind {
        var reader = SSHWireReader(contents)
        let hostKey = try reader.string()
        let session = try reader.string()
        let signature = try reader.string()
        let forwarding = try reader.byte()
        try reader.expectEnd()
        guard !hostKey.isEmpty, hostKey.count <= maxBlobBytes, !session.isEmpty, session.count <= maxSessionIdentifierBytes,
              !signature.isEmpty, signature.count <= maxBlobBytes, forwarding <= 1
        else { throw .malformedName }
        return SSHSessionBind(
            hostKeyBlob: Array(hostKey), sessionIdentifier: Array(session), signatureBlob: Array(signature),
            isForwarding: forwarding == 1
        )
    }

    /// The contents as ssh sends them (the inverse of `parse`).
    public var encoded: [UInt8] {
        var writer = SSHWireWriter(capacity: 16 + hostKeyBlob.count + sessionIdentifier.count + signatureBlob.count)
        writer.string(hostKeyBlob)
        writer.string(sessionIdentifier)
        writer.string(signatureBlob)
        writer.byte(isForwarding ? 1 : 0)
        return writer.bytes
    }
}
