/// What a credential's key is for (SECURITY.md "Signature domains"). It is chosen at
/// Register, sealed into the record's header (format versions 2 and 3, docs/FORMAT.md), and
/// never changes: another purpose is another credential. Which front door and method may
/// use a key of each purpose is decided in one place, the engine's `KeyAccess`.
public enum KeyPurpose: String, CaseIterable, Hashable, Sendable {
    /// A relying party's challenges: Authenticate, and Unlock + Sign. Never offered by
    /// an agent. Register's default.
    case authenticate
    /// OpenSSH's: the ssh-agent doors offer it and sign only SSH userauth requests and
    /// SSHSIG preimages with it.
    case ssh
    /// pam_pinvault's: Authenticate signs only challenges that begin with the module's
    /// context prefix; never Sign, never an agent.
    case login
    /// A security key's: the authenticator credential of a uid's passkeys (one per uid).
    /// Its PIN is the security-key PIN, its record sealed under what CTAP sends for it
    /// (`SecurityKeyPin`); its seed is what each passkey's key is derived from
    /// (`PasskeySeed`). Only the passkey door uses it, and signs only WebAuthn's
    /// authenticator data with the passkeys it derives; no other door serves it.
    case webauthn
    /// What a credential made before purposes existed reads as (format version 1): it
    /// keeps working where it worked, under the shape checks of every door. Register
    /// never makes one.
    case legacy

    /// The purposes Register may give a new credential.
    public static let registrable: [KeyPurpose] = [.authenticate, .ssh, .login, .webauthn]

    /// The byte format versions 2 and 3 write into the header; nil for `legacy`, whose records
    /// (format version 1) have none.
    public var headerByte: UInt8? {
        switch self {
        case .authenticate: 1
        case .ssh: 2
        case .login: 3
        case .webauthn: 4
        case .legacy: nil
        }
    }

}
