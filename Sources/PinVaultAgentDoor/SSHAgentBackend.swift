import PinVaultSSHProtocol
import PinVaultDoor

/// What an ssh-agent door asks of the keys behind it: the daemon's engine (pinvaultd's
/// agent socket) or pinvaultd itself over Varlink (the per-user agent). Each answers
/// through `answer` exactly once, from any thread; nil (or false) is SSH_AGENT_FAILURE.
public protocol SSHAgentBackend: Sendable {
    /// The identities to list (key and certificate blobs, with comments).
    func identities(_ call: AgentCall, answer: @escaping @Sendable ([SSHAgentReply.Identity]?) -> Void)
    /// A signature of `data` by the key of `keyBlob`, in its algorithm's wire form
    /// (`KeyAlgorithm`: Ed25519's 64 bytes, P-256's DER); the door writes it for SSH.
    func sign(keyBlob: [UInt8], data: [UInt8], flags: UInt32, _ call: AgentCall, answer: @escaping @Sendable ([UInt8]?) -> Void)
    /// Takes away the key of `keyBlob`, or every key the door offers (nil).
    func remove(keyBlob: [UInt8]?, _ call: AgentCall, answer: @escaping @Sendable (Bool) -> Void)
    /// The connection closed: what the backend kept for it can go.
    func connectionClosed(_ connection: ConnectionID)
}

extension SSHAgentBackend {
    public func connectionClosed(_ connection: ConnectionID) {}
}

/// One request, as the backend sees it: who asked, on which connection, and what
/// session-bind told that connection.
public struct AgentCall: Sendable {
    public let peer: Peer
    public let connection: ConnectionID
    public let state: AgentConnectionState
    /// True once the peer has gone: work not begun (a prompt) should be dropped.
    public let isCancelled: @Sendable () -> Bool

    public init(peer: Peer, connection: ConnectionID, state: AgentConnectionState, isCancelled: @escaping @Sendable () -> Bool) {
        self.peer = peer
        self.connection = connection
        self.state = state
        self.isCancelled = isCancelled
    }
}
