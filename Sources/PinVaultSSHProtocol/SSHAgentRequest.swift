/// A request to the agent (draft-ietf-sshm-ssh-agent, OpenSSH's PROTOCOL.agent), as
/// far as PinVault's agent reads it. Everything a request needs is copied out of the
/// frame, which is zeroed once the message is handled.
public enum SSHAgentRequest: Equatable, Sendable {
    /// SSH_AGENTC_REQUEST_IDENTITIES (11).
    case requestIdentities
    /// SSH_AGENTC_SIGN_REQUEST (13): sign `data` with the key of `keyBlob`. `flags`
    /// ask RSA keys for SHA-2 signatures; an Ed25519 key has one signature
    /// algorithm and ignores them, as OpenSSH's agent does.
    case sign(keyBlob: [UInt8], data: [UInt8], flags: UInt32)
    /// SSH_AGENTC_REMOVE_IDENTITY (18).
    case removeIdentity(keyBlob: [UInt8])
    /// SSH_AGENTC_REMOVE_ALL_IDENTITIES (19).
    case removeAllIdentities
    /// SSH_AGENTC_EXTENSION (27): the extension's name and its contents (OpenSSH's
    /// form: the contents follow the name unwrapped).
    case `extension`(name: [UInt8], contents: [UInt8])
    /// A request PinVaultSSHAgent answers with SSH_AGENT_FAILURE without reading
    /// further: adding keys (17, 20, 25, 26), removing smartcard keys (21), locking
    /// the agent with a passphrase (22, 23), the SSH1 messages, anything unknown.
    case unsupported(type: UInt8)

    /// Message numbers (draft-ietf-sshm-ssh-agent §6.1).
    public enum Number {
        public static let failure: UInt8 = 5
        public static let success: UInt8 = 6
        public static let requestIdentities: UInt8 = 11
        public static let identitiesAnswer: UInt8 = 12
        public static let signRequest: UInt8 = 13
        public static let signResponse: UInt8 = 14
        public static let addIdentity: UInt8 = 17
        public static let removeIdentity: UInt8 = 18
        public static let removeAllIdentities: UInt8 = 19
        public static let addSmartcardKey: UInt8 = 20
        public static let removeSmartcardKey: UInt8 = 21
        public static let lock: UInt8 = 22
        public static let unlock: UInt8 = 23
        public static let addIdentityConstrained: UInt8 = 25
        public static let addSmartcardKeyConstrained: UInt8 = 26
        public static let `extension`: UInt8 = 27
        public static let extensionFailure: UInt8 = 28
        public static let extensionResponse: UInt8 = 29
    }

    /// Parses one message (type byte and body). The fields each request has must all
    /// be there and nothing after them; an unsupported type is not read further.
    public static func parse(_ message: UnsafeRawBufferPointer) throws(SSHAgentMessageError) -> SSHAgentRequest {
        var reader = SSHWireReader(message)
        let type = try reader.byte()
        switch type {
        case Number.requestIdentities:
            try reader.expectEnd()
            return .requestIdentities
        case Number.signRequest:
            let key = Array(try reader.string())
            let data = Array(try reader.string())
            let flags = try reader.uint32()
            try reader.expectEnd()
            return .sign(keyBlob: key, data: data, flags: flags)
        case Number.removeIdentity:
            let key = Array(try reader.string())
            try reader.expectEnd()
            return .removeIdentity(keyBlob: key)
        case Number.removeAllIdentities:
            try reader.expectEnd()
            return .removeAllIdentities
        case Number.extension:
            let name = Array(try reader.string())
            return .extension(name: name, contents: Array(reader.rest()))
        default:
            return .unsupported(type: type)
        }
    }
}
