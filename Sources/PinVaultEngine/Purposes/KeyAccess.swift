import PinVaultCrypto
import PinVaultSSHProtocol

/// A way into a credential's key: one for each front door and method that uses a key.
/// A door names the access of every request it decodes; which purposes each access
/// serves, and what each may sign, is decided here and nowhere else (SECURITY.md
/// "Signature domains"): each purpose's row (`KeyPurpose.accesses`, below) names the
/// accesses that serve it, and `check` what each signs. A new door is one case, in the
/// rows of the purposes it serves, and `check`'s switch does not build until it knows it.
public enum KeyAccess: String, CaseIterable, Sendable {
    /// Varlink Authenticate: the PIN and a relying party's challenge; pam_pinvault's
    /// sign-in too.
    case authenticate
    /// Varlink Unlock: the PIN, to open a session that the session doors below sign with.
    case unlock
    /// Varlink Sign: a relying party's challenge, with an unlocked key (the PKCS#11
    /// module signs through it).
    case sign
    /// The daemon's ssh-agent socket: lists the unlocked keys, signs SSH data.
    case sshAgent
    /// The per-user agent (`pinvault agent`), through Varlink `AgentSign`: signs SSH
    /// data with the user's `ssh` keys, which it unlocks after asking for the PIN.
    /// Legacy keys are not its own: they work through the daemon's socket, as before.
    case userAgent
    /// Varlink SignDigest, for the PKCS#11 module's `ssh` tokens (`ssh -I` hashes what it
    /// signs, and asks for ECDSA over the hash): signs a caller's SHA-256 digest with an
    /// unlocked `ssh` key. A digest cannot be shape-checked — nothing tells what it is the
    /// hash of — so only `ssh` keys sign one, whose signatures only sshd and git trust.
    case signDigest
    /// The security-key door (CTAP): opens the authenticator credential of purpose
    /// `webauthn` with its PIN (a pinUvAuthToken), and signs with the passkeys derived from
    /// it only WebAuthn's signed data, authenticatorData ‖ clientDataHash
    /// (`WebAuthnSignedData`), whose rp id hash the engine takes from the passkey. It
    /// serves no other purpose, and no other door serves `webauthn`.
    case passkey

    /// Whether this access signs a caller's digest rather than a whole message.
    var signsDigest: Bool { self == .signDigest }

    /// Whether a key of `purpose` may be used this way at all: its row below
    /// (SECURITY.md gives the table; `KeyAccessTests` checks every cell against a copy of
    /// its own, and the daemon's `DoorPurposeTests` drives each through the sockets).
    public func serves(_ purpose: KeyPurpose) -> Bool {
        purpose.accesses.contains(self)
    }

    /// Refuses a key of `purpose` this way (`WrongPurpose`), and `message` when it is not
    /// what this access may sign with such a key. The one check every key use passes
    /// before its PIN is counted or its key signs:
    /// - Authenticate and Sign never sign what could be meant as SSH data
    ///   (`SSHSignedData.resemblesSSHData`), whatever the purpose (`InvalidParameter
    ///   (challenge)`); a login key signs only challenges that open with
    ///   `LoginChallenge.prefix` (`WrongPurpose(login)`).
    /// - The ssh-agents sign only an SSH userauth request made for this very key (or an
    ///   OpenSSH certificate of it), or an SSHSIG preimage (`SSHSignedData.parse`), as
    ///   OpenSSH's agent does for a FIDO key of another application.
    /// - The passkey door signs only WebAuthn's authenticatorData ‖ clientDataHash.
    /// - SignDigest signs a digest with an `ssh` key whose algorithm signs digests
    ///   (`SignsNoDigest` otherwise): the one door with no shape check, which the table
    ///   confines to `ssh` keys.
    /// `message` is nil for Unlock, which signs nothing. `algorithm` and `publicKey` are
    /// the key's: what an SSH request must name.
    func check(_ purpose: KeyPurpose, message: [UInt8]?, algorithm: KeyAlgorithm, publicKey: [UInt8]) throws(VaultError) {
        guard serves(purpose) else { throw .wrongPurpose(purpose) }
        guard let message else { return }
        switch self {
        case .authenticate, .sign:
            guard !message.withUnsafeBytes(SSHSignedData.resemblesSSHData) else { throw .invalidChallenge }
            if purpose == .login && !message.starts(with: LoginChallenge.prefix) { throw .wrongPurpose(purpose) }
        case .sshAgent, .userAgent:
            switch message.withUnsafeBytes(SSHSignedData.parse) {
            case .userauth(let request):
                guard request.names(SSHKey(algorithm: algorithm, publicKey: publicKey)) else {
                    throw .invalidChallenge
                }
            case .sshsig:
                break
            case nil:
                throw .invalidChallenge
            }
        case .signDigest:
            // No shape to check: the table above is the check. A key whose algorithm hashes
            // as part of signing (Ed25519) signs no digest.
            guard algorithm.signsDigests else { throw .signsNoDigest }
        case .passkey:
            guard WebAuthnSignedData.isSignedData(message) else { throw .invalidChallenge }
        case .unlock:
            throw .invalidChallenge
        }
    }
}

extension KeyPurpose {
    /// What a key of this purpose may do: the ways into it that serve it, one row per
    /// purpose, and every other way answers `WrongPurpose` before a PIN is counted. A new
    /// purpose is one row here (the switch does not build until it has one).
    var accesses: [KeyAccess] {
        switch self {
        // A relying party's challenges, with the PIN or through a session; never an agent.
        case .authenticate: [.authenticate, .unlock, .sign]
        // OpenSSH's: unlocked, then the ssh-agents. SignDigest, whose signatures only sshd
        // and git trust, signs with no other purpose: an authenticate key's relying party,
        // a login key's PAM module and a legacy key's Authenticate all trust a signature of
        // a message whose shape is checked, and a digest has none.
        case .ssh: [.unlock, .sshAgent, .userAgent, .signDigest]
        // pam_pinvault's sign-in, with the PIN: never a session, nothing to unlock it for.
        case .login: [.authenticate]
        // A security key's PIN and passkeys are the passkey door's alone, and it has no
        // other key: a relying party on the web must never get a signature a login, an
        // ssh server or an app trusts, nor the other way round.
        case .webauthn: [.passkey]
        // Every door it served before purposes existed (the per-user agent and SignDigest
        // came later), each under its shape check below.
        case .legacy: [.authenticate, .unlock, .sign, .sshAgent]
        }
    }
}

/// pam_pinvault's challenges (pam/pv_request.c `pv_challenge`): the context string and
/// its NUL, then the PAM service, the user and a fresh nonce.
public enum LoginChallenge {
    public static let prefix = Array("pam_pinvault v1\u{0}".utf8)
}
