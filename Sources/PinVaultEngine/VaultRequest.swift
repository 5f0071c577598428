import PinVaultCrypto

/// One request to the vault, decoded by a front door. Secrets arrive as `SecretBytes`,
/// decoded straight from the peer's message; they are released (and so zeroed) with
/// the request.
public enum VaultRequest: Sendable {
    case getPolicy
    case checkPin(pin: SecretBytes)
    /// A new credential for `purpose` (never `legacy`: its door refuses that), with a
    /// key of `algorithm`.
    case register(user: String, pin: SecretBytes, label: String?, purpose: KeyPurpose, algorithm: KeyAlgorithm = .default)
    /// The credentials of `ownerUid` (the caller's when nil), of one user and of one
    /// purpose when given.
    case list(user: String?, ownerUid: UInt32?, purpose: KeyPurpose? = nil)
    case authenticate(user: String, keyId: KeyID?, pin: SecretBytes, challenge: [UInt8], ownerUid: UInt32?)
    case changePin(user: String, keyId: KeyID?, currentPin: SecretBytes, newPin: SecretBytes)
    case beginUnregister(user: String, keyId: KeyID?, pin: SecretBytes?)
    case commitUnregister(keyId: KeyID, token: SecretBytes)
    case abortUnregister(keyId: KeyID, token: SecretBytes)
    case wipe(user: String, keyId: KeyID?, pin: SecretBytes?, ownerUid: UInt32?)
    case unblock(ownerUid: UInt32, user: String, keyId: KeyID)
    case reset
    case getStats
    /// Opens (or extends) an unlock session after a PIN check. `boundConnection`: the
    /// front door's id of the connection whose end ends the session
    /// (`bindToConnection`), unique for the daemon's life; the door reports that end
    /// with `VaultEngine.endSessions(boundTo:)`.
    case unlock(
        user: String, keyId: KeyID?, pin: SecretBytes, ttlSeconds: Int64, boundConnection: UInt64?,
        constraints: SessionConstraints = SessionConstraints()
    )
    /// Ends the caller's session on `keyId`, or all of the caller's sessions — of the
    /// keys `access` serves, when a door names one (an agent's REMOVE_ALL_IDENTITIES
    /// ends what it offers, not an app's session).
    case lock(keyId: KeyID?, access: KeyAccess?)
    /// Signs exactly `message` (non-empty; its door bounds the size) with the caller's
    /// session on `keyId`: no PIN, no KDF. `access` is the door's (Varlink Sign, an
    /// ssh-agent): what it may sign with which key is `KeyAccess.check`'s to decide.
    /// `context`: what the door knows of the request (forwarded, confirmed), checked
    /// against the session's `SessionConstraints`.
    case sign(keyId: KeyID, message: [UInt8], access: KeyAccess, context: SigningContext = .plain)
    /// Attaches an OpenSSH certificate of its key to the caller's `ssh` credential.
    case addSSHCertificate(keyId: KeyID, certificate: [UInt8])
    /// Detaches one.
    case removeSSHCertificate(keyId: KeyID, certificate: [UInt8])
    /// The caller's unlocked credentials that `access` serves (the ssh-agent's
    /// REQUEST_IDENTITIES).
    case unlockedKeys(access: KeyAccess)
    /// The passkey door's requests (the security key, `VaultEngine+SecurityKey`), each
    /// of the caller's uid. `channel`: the door's id of the CTAPHID channel, unique for
    /// the daemon's life, whose close ends its token (`endSecurityKeyToken`).
    /// The security key's remaining PIN attempts (NoSuchCredential: no PIN set).
    case securityKeyRetries
    /// Checks LEFT(SHA-256(PIN), 16) as every PIN is checked, then makes the channel's
    /// pinUvAuthToken with `permissions` (CTAP's bits: 0x01 mc, 0x02 ga, 0x04 cm) for
    /// `rpId` when given.
    case securityKeyToken(pinHash: SecretBytes, channel: UInt64, permissions: UInt8, rpId: String?)
    /// CTAP's changePIN: the current PIN's hash checked as every PIN is, then the security
    /// key re-sealed under the new PIN (itself: the policy applies to it); its tokens end.
    case securityKeyChangePin(pinHash: SecretBytes, newPin: SecretBytes)
    /// CTAP's authenticatorReset, which the door allows only on a device just made: the
    /// caller's security key deleted (a Wipe, audited), and every passkey with it.
    case securityKeyReset
    /// A new discoverable passkey for `rpId` under the channel's token (its first use:
    /// the PIN just typed is the user's presence), self-attested.
    case makePasskey(
        channel: UInt64, rpId: String, userHandle: [UInt8], userName: String?, displayName: String?,
        algorithm: KeyAlgorithm, clientDataHash: [UInt8]
    )
    /// Assertions of the caller's passkeys for `rpId` (those of `allowList`, or every
    /// discoverable one, newest first) over `clientDataHash`. `presence`: the request
    /// asks for the user's presence, which only a token's first use gives.
    case passkeyAssertions(channel: UInt64, rpId: String, allowList: [[UInt8]]?, clientDataHash: [UInt8], presence: Bool)
    /// The caller's passkeys, of one relying party when given: under the channel's token
    /// with `cm`, or (channel nil) for the owner's own tools.
    case passkeys(channel: UInt64?, rpIdHash: [UInt8]?)
    case deletePasskey(channel: UInt64?, credentialId: [UInt8])
}
