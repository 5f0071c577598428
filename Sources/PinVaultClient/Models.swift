import FoundationEssentials
import PinVaultProtocol

// The interface's types, as the client answers them. Each is the model the build
// generates from io.pinvault.Vault.varlink, the same one pinvaultd encodes its replies
// with: its fields, their documentation and their encodings come from the interface
// file, and the client adds only what a caller needs beside them.

/// One credential as its owner (or an admin) sees it: who it belongs to, its public key
/// and its lockout state. Holds no secret.
public typealias Credential = VaultCredential

/// One of the caller's passkeys, as `passkeys(rpId:)` answers it: what a relying party
/// said of a discoverable credential the caller's security key made. Public data only.
public typealias Passkey = VaultPasskey

/// The PIN rules and lockout settings the daemon enforces.
public typealias PinPolicy = VaultPinPolicy

/// The running daemon's counters since it started (admins only).
public typealias Stats = VaultStats

extension VaultCredential {
    /// Decodes the `Credential` object `name` of a reply.
    static func decode(_ name: String, in reply: ParameterDecoder) throws(ParameterError) -> Credential {
        try Credential(from: ParameterError.present(name, reply.object(name, required: true)))
    }
}

extension VaultTime {
    /// The instant as a `Date`.
    public var date: Date { Date(unixSeconds: unixSeconds) }

    /// Seconds from now until the instant (negative once it has passed), as `Date`'s.
    public var timeIntervalSinceNow: TimeInterval { date.timeIntervalSinceNow }
}
