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

    /// Refuses a signature these constraints do not allow in `context`: the one check,
    /// beside `KeyAccess.check`, that every signature with a session passes.
    func check(_ context: SigningContext) throws(VaultError) {
        if context.forwarded && !allowForwarding { throw .forwardingNotAllowed }
        if confirmEachUse && !context.confirmed { throw .confirmationRequired }
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

    public init(forwarded: Bool = false, confirmed: Bool = false) {
        self.forwarded = forwarded
        self.confirmed = confirmed
    }

    /// A relying party's request through Varlink Sign: nothing forwarded, nothing confirmed.
    public static let plain = SigningContext()
}
