/// How an unlocked key may be used beyond what its purpose allows, as the Unlock that
/// opened (or last extended) its session said: `pinvault unlock --confirm` and
/// `--allow-forwarding`, or the per-user agent's settings for the key.
public struct SessionConstraints: Sendable, Equatable {
    /// Every signature needs the owner's yes, asked by the door that signs (`ssh-add -c`'s
    /// confirmation): only a door that can ask — the per-user agent, through its prompt —
    /// can use such a session.
    public var confirmEachUse: Bool
    /// Signatures for a connection an ssh client forwarded (`ssh -A`: the agent learns it
    /// from `session-bind@openssh.com`) are allowed.
    public var allowForwarding: Bool

    public init(confirmEachUse: Bool = false, allowForwarding: Bool = false) {
        self.confirmEachUse = confirmEachUse
        self.allowForwarding = allowForwarding
    }

    /// Refuses a signature these constraints do not allow in `context`, nor the door's
    /// own rules for the key (`SigningContext.doorRules`) beside them: forwarded only when
    /// both allow it, confirmed when either asks for it. The one check, beside
    /// `KeyAccess.check`, that every signature with a session passes.
    func check(_ context: SigningContext) throws(VaultError) {
        try context.checkDoorRules()
        if context.forwarded && !allowForwarding { throw .forwardingNotAllowed }
        if (confirmEachUse || context.doorRules?.confirmEachUse == true) && !context.confirmed { throw .confirmationRequired }
    }
}

/// What a door knows of one signature request beyond its bytes.
public struct SigningContext: Sendable, Equatable {
    /// The request came through an agent connection ssh opened for a forwarded agent
    /// (a verified or claimed `session-bind@openssh.com` with is_forwarding; a claim
    /// of forwarding is believed: it can only restrict).
    public var forwarded: Bool
    /// The owner said yes to this very signature, in the door's prompt.
    public var confirmed: Bool
    /// The door's own rules for this key, whoever opened its session: the per-user
    /// agent's `confirm` and `allow_forwarding` (agent.toml). They apply beside the
    /// session's constraints, never instead of them. nil: a door with no rules of its own.
    public var doorRules: SessionConstraints?

    public init(forwarded: Bool = false, confirmed: Bool = false, doorRules: SessionConstraints? = nil) {
        self.forwarded = forwarded
        self.confirmed = confirmed
        self.doorRules = doorRules
    }

    /// Refuses what the door's rules refuse on the request alone — a forwarded signature
    /// they do not allow — before any session is looked up: a locked key is refused so
    /// too, and the door asks its user for no PIN that could not end in a signature.
    func checkDoorRules() throws(VaultError) {
        if forwarded && doorRules?.allowForwarding == false { throw .forwardingNotAllowed }
    }

    /// A relying party's request through Varlink Sign: nothing forwarded, nothing confirmed.
    public static let plain = SigningContext()
}
