import PinVaultSSHProtocol

/// What `session-bind@openssh.com` told one agent connection, kept by the rules of
/// OpenSSH's agent (`process_ext_session_bind`): the hosts it was bound to, each
/// verified with its host key, and whether it serves a forwarded agent.
public struct AgentConnectionState: Sendable, Equatable {
    /// One verified binding.
    public struct Binding: Sendable, Equatable {
        public let hostKeyBlob: [UInt8]
        public let sessionIdentifier: [UInt8]
        public let forwarded: Bool
    }

    /// OpenSSH's `AGENT_MAX_SESSION_IDS`: a connection takes this many bindings at most.
    public static let maxBindings = 16

    public private(set) var bindings: [Binding] = []
    /// Whether any session-bind came, verified or not.
    public private(set) var bindAttempted = false
    /// A session-bind claimed forwarding, whether or not it verified or was recorded: a
    /// claim of forwarding can only restrict, so it is believed (OpenSSH's agent would
    /// drop a bind it refuses; on a forwarded connection whose first bind does not
    /// verify — a host key type no one here checks — that would let it pass for a
    /// local one).
    private var claimedForwarding = false

    public init() {}

    /// Whether the connection serves an agent ssh forwarded (`ssh -A`): a signature it
    /// asks for is made on another host's behalf.
    public var isForwarded: Bool { claimedForwarding || bindings.contains { $0.forwarded } }

    /// The host key of the last verified binding: the host the signature is for, or, on
    /// a forwarded connection, the last hop. Never one that did not verify.
    public var destinationHostKey: [UInt8]? { bindings.last?.hostKeyBlob }

    /// Records a session-bind that did not parse: attempted, nothing learned.
    public mutating func recordUnreadable() {
        bindAttempted = true
    }

    /// Records `bind` (its signature `verified` or not); whether the agent answers
    /// success. A connection bound for authentication (not forwarding) takes no other
    /// binding; the same session identifier is accepted again only with the same key.
    public mutating func record(_ bind: SSHSessionBind, verified: Bool) -> Bool {
        bindAttempted = true
        if bind.isForwarding { claimedForwarding = true }
        guard verified else { return false }
        for existing in bindings {
            guard existing.forwarded else { return false }
            if existing.sessionIdentifier == bind.sessionIdentifier { return existing.hostKeyBlob == bind.hostKeyBlob }
        }
        guard bindings.count < Self.maxBindings else { return false }
        bindings.append(Binding(hostKeyBlob: bind.hostKeyBlob, sessionIdentifier: bind.sessionIdentifier, forwarded: bind.isForwarding))
        return true
    }
}
