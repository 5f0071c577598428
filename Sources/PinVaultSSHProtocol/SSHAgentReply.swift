import PinVaultCrypto

/// The agent's replies, each one whole frame: the 4-byte length, then the message.
public enum SSHAgentReply {
    /// SSH_AGENT_FAILURE.
    public static func failure() -> [UInt8] { frame { $0.byte(SSHAgentRequest.Number.failure) } }

    /// SSH_AGENT_EXTENSION_FAILURE: an extension the agent knows refused the request.
    public static func extensionFailure() -> [UInt8] { frame { $0.byte(SSHAgentRequest.Number.extensionFailure) } }

    /// SSH_AGENT_SUCCESS.
    public static func success() -> [UInt8] { frame { $0.byte(SSHAgentRequest.Number.success) } }

    /// One identity of an IDENTITIES_ANSWER: a key or a certificate of one.
    public struct Identity: Equatable, Sendable {
        public var keyBlob: [UInt8]
        public var comment: String

        /// A key or certificate blob as it is.
        public init(keyBlob: [UInt8], comment: String) {
            self.keyBlob = keyBlob
            self.comment = comment
        }
    }

    /// SSH_AGENT_IDENTITIES_ANSWER: `uint32 nkeys`, then each key blob and comment.
    public static func identities(_ identities: [Identity]) -> [UInt8] {
        let size = identities.reduce(5) { $0 + 8 + $1.keyBlob.count + $1.comment.utf8.count }
        return frame(capacity: size) { writer in
            writer.byte(SSHAgentRequest.Number.identitiesAnswer)
            writer.uint32(UInt32(identities.count))
            for identity in identities {
                writer.string(identity.keyBlob)
                writer.string(utf8: identity.comment)
            }
        }
    }

    /// SSH_AGENT_SIGN_RESPONSE with the signature blob of `signature` (its algorithm's
    /// wire form, `KeyAlgorithm`) as `algorithm` writes it for SSH; nil when the signature
    /// is not well formed.
    public static func signature(_ signature: [UInt8], algorithm: KeyAlgorithm) -> [UInt8]? {
        guard let blob = algorithm.sshSignatureBlob(signature) else { return nil }
        return frame { writer in
            writer.byte(SSHAgentRequest.Number.signResponse)
            writer.string(blob)
        }
    }

    /// The answer to the `query` extension, as OpenSSH's ssh-agent and the IETF's
    /// agent draft give it: SSH_AGENT_EXTENSION_RESPONSE, the extension's name
    /// (`query`) as every extension response begins, then the name of each extension
    /// the agent supports. (The older draft-miller-ssh-agent answered
    /// SSH_AGENT_SUCCESS and the names.)
    public static func queryAnswer(_ extensions: [String]) -> [UInt8] {
        frame { writer in
            writer.byte(SSHAgentRequest.Number.extensionResponse)
            writer.string(utf8: "query")
            for name in extensions { writer.string(utf8: name) }
        }
    }

    /// The message `body` writes after its length, in one buffer of `capacity` bytes
    /// (the message's size, when known) plus the length's four.
    private static func frame(capacity: Int = 124, _ body: (inout SSHWireWriter) -> Void) -> [UInt8] {
        var writer = SSHWireWriter(capacity: capacity + 4)
        writer.uint32(0)
        body(&writer)
        writer.setUInt32(UInt32(writer.bytes.count - 4), at: 0)
        return writer.bytes
    }
}
