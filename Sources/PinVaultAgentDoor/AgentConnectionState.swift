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
    /// The session-binds a connection may send at all: each costs a signature check,
    /// and ssh sends one per hop.
    public static let maxBindAttempts = 2 * maxBindings

    public private(set) var bindings: [Binding] = []
    /// Whether any session-bind came, verified or not.
    public private(set) var bindAttempted = false
    /// A session-bind claimed forwarding, whether or not it verified or was recorded: a
    /// claim of forwarding can only restrict, so it is believed (OpenSSH's agent would
    /// drop a bind it refuses; on a forwarded connection whose first bind does not
    /// verify — a host key type no one here checks — that would let it pass for a
    /// local one).
    private var claimedForwarding = false
    private var bindAttempts = 0

    public init() {}

    /// Whether the connection serves an agent ssh forwarded (`ssh -A`): a signature it
    /// asks for is made on another host's behalf.
    public var isForwarded: Bool { claimedForwarding || bindings.contains { $0.forwarded } }

    /// Where a signature goes, as far as verified bindings show it.
    public struct Destination: Sendable, Equatable {
        /// The host a login is for: the host key of the binding whose session identifier
        /// the userauth request carries (and, hostbound, whose host key it names), as
        /// OpenSSH's agent matches them. nil for anything else, SSHSIG included.
        public var host: [UInt8]?
        /// On a forwarded connection, the host the user's own ssh forwarded the agent to:
        /// its first binding, the one ssh made before relaying anything. Any later
        /// binding was made on that host, and is only its word.
        public var forwardedTo: [UInt8]?
        public var forwarded: Bool
    }

    /// Where a signature of `data` goes. Never a host that did not verify, and never one
    /// the request's own session identifier does not point at: a binding replayed on
    /// another connection names nothing for a login it is not part of.
    public func destination(of data: [UInt8]) -> Destination {
        let forwardedTo = bindings.first.flatMap { $0.forwarded ? $0.hostKeyBlob : nil }
        var host: [UInt8]?
        if case .userauth(let request)? = data.withUnsafeBytes(SSHSignedData.parse),
           let bound = bindings.last(where: { $0.sessionIdentifier == request.sessionIdentifier }),
           request.hostKeyBlob == nil || request.hostKeyBlob == bound.hostKeyBlob {
            host = bound.hostKeyBlob
        }
        return Destination(host: host, forwardedTo: forwardedTo, forwarded: isForwarded)
    }

    /// Records a session-bind that did not parse: attempted, nothing learned.
    public mutating func recordUnreadable() {
        bindAttempted = true
        bindAttempts += 1
    }

    /// A session-bind that parsed: notes the attempt and any claim of forwarding, and says
    /// whether it could be recorded were its signature to verify — the cheap rules, before
    /// the costly check. A connection past `maxBindAttempts` takes no more.
    public mutating func admit(_ bind: SSHSessionBind) -> Bool {
        bindAttempted = true
        bindAttempts += 1
        if bind.isForwarding { claimedForwarding = true }
        return bindAttempts <= Self.maxBindAttempts && canRecord(bind)
    }

    /// Records an admitted `bind` whose signature was checked (`verified` or not); whether
    /// the agent answers success. A connection bound for authentication (not forwarding)
    /// takes no other binding; the same session identifier is accepted again only with
    /// the same key.
    public mutating func record(_ bind: SSHSessionBind, verified: Bool) -> Bool {
        guard verified, canRecord(bind) else { return false }
        if !bindings.contains(where: { $0.sessionIdentifier == bind.sessionIdentifier }) {
            bindings.append(Binding(hostKeyBlob: bind.hostKeyBlob, sessionIdentifier: bind.sessionIdentifier, forwarded: bind.isForwarding))
        }
        return true
    }

    private func canRecord(_ bind: SSHSessionBind) -> Bool {
        for existing in bindings {
            guard existing.forwarded else { return false }
            if existing.sessionIdentifier == bind.sessionIdentifier { return existing.hostKeyBlob == bind.hostKeyBlob }
        }
        return bindings.count < Self.maxBindings
    }
}
