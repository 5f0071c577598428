import PinVaultCore
import PinVaultCrypto

/// Every way a vault request can fail, as the engine decides it — the one error
/// vocabulary of PinVault. Each front door maps each case to its own wire form (the
/// Varlink door to `io.pinvault.Vault.<Name>`, docs/ARCHITECTURE.md); lower layers'
/// failures (store, crypto, system) become `internalError` at the engine's boundary,
/// logged there, never passed through.
public enum VaultError: Error, Equatable, Sendable {
    /// The PIN is wrong; the failure was counted.
    case wrongPin(remainingAttempts: Int)
    /// Throttled: no PIN is checked for this long. Not counted.
    case lockedOut(retryAfterSeconds: Int64)
    /// Blocked until an admin `Unblock`.
    case credentialBlocked
    /// Deleted by this call for reaching `max_attempts` under `on_max_attempts = wipe`.
    case credentialWiped
    /// Unblock only: `wrongPins` wrong PINs, at least twice `max_attempts`, were tried
    /// since the owner's last success; no admin may revive the credential.
    case unblockRefused(wrongPins: Int)
    /// A new PIN breaks these policy rules.
    case pinPolicyViolation([PinViolation])
    /// No such credential for this caller (another uid's is reported so too).
    case noSuchCredential
    /// No key id given, and the user holds these credentials.
    case ambiguousCredential([KeyID])
    /// The per-user or per-uid credential limit.
    case tooManyCredentials(limit: Int)
    /// An unregistration is pending until this Unix time.
    case unregistrationPending(expiresAt: Int64)
    /// Wrong unregistration token, or nothing pending.
    case invalidToken
    /// A pool is full (the KDF pool, the store queue or the signing queue, or one
    /// uid's share of it): retry after this long. Nothing was counted.
    case busy(retryAfterMilliseconds: Int)
    /// The credential changed while the call ran (a ChangePin, say, re-sealed it after
    /// this call's PIN was checked): nothing was done and the attempt is not counted.
    /// Retry at once: the retry meets the new state.
    case conflict
    /// The daemon is stopping (SIGTERM, an idle exit) and takes no new work: nothing
    /// was done or counted. Retry on a new connection, which the next start serves.
    case shuttingDown
    /// The caller's uid (or the whole daemon) has as many unlock sessions open as
    /// `sessions.max_per_uid` allows; refused before the PIN, nothing counted. Lock one.
    case tooManySessions(limit: Int)
    /// No unlock session of the caller on that key (none, expired, locked, or another
    /// uid's: the same answer, so that it tells nothing).
    case notUnlocked
    /// The credential's key was made for another purpose than this door or method
    /// serves (`KeyAccess`); refused before any PIN is counted.
    case wrongPurpose(KeyPurpose)
    /// The bytes to sign belong to another signature domain: data shaped as an SSH
    /// userauth request, SSHSIG preimage or certificate given to Authenticate or Sign,
    /// or anything but SSH data given to an agent (`KeyAccess.check`). Nothing counted.
    case invalidChallenge
    /// SignDigest with a key whose algorithm signs only whole messages (Ed25519): on the
    /// wire, InvalidParameter(keyId).
    case signsNoDigest
    /// The request came through a forwarded agent connection (`ssh -A`) and the key was
    /// not unlocked with `allowForwarding`. Nothing signed.
    case forwardingNotAllowed
    /// The key was unlocked with `confirmEachUse` and the door did not say the owner
    /// confirmed this signature (only the per-user agent can ask). Nothing signed.
    case confirmationRequired
    /// Not an OpenSSH user certificate of the credential's key (malformed, of another
    /// key, a host certificate). Nothing changed.
    case invalidCertificate
    /// The credential carries as many certificates as it may.
    case tooManyCertificates(limit: Int)
    /// The caller may not do this.
    case permissionDenied
    /// The store or the system failed; the daemon's log says how. Nothing changed.
    case internalError
}
