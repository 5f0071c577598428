/// The `io.pinvault.Vault` interface: its name and the description that
/// `org.varlink.service.GetInterfaceDescription` serves.
///
/// `description` is byte for byte the repository's `io.pinvault.Vault.varlink` (a test
/// compares them): edit the file, then paste it here.
public enum VaultInterface {
    /// The interface name.
    public static let name = "io.pinvault.Vault"

    /// The interface definition, with its documentation comments.
    public static let description = #"""
# PinVault keeps PIN-protected Ed25519 signing keys for the applications of one
# machine. A credential is one seed, one PIN and one key pair; it belongs to the
# uid of the process that registered it and to an account name, `user`.
#
# Callers are identified by SO_PEERCRED. A caller sees and uses only the
# credentials of its own uid; another uid's credential is NoSuchCredential.
# Admins (uid 0 or members of access.admin_group) may pass ownerUid and call
# Unblock and Reset.
#
# Times are RFC 3339 UTC with a `Z` ("2026-01-31T12:00:00Z"). Public keys,
# signatures and challenges are standard base64 with padding. A keyId is 32
# lowercase hex digits: the first 16 bytes of BLAKE2b-256 of the public key.
# Malformed values (bad base64, an over-long user, a challenge out of range,
# unknown parameters) answer org.varlink.service.InvalidParameter.
interface io.pinvault.Vault

# One credential, as its owner (or an admin) sees it. Never holds a secret.
type Credential (
  # The account name: 1-256 bytes of UTF-8 with no control or bidi character:
  # none of U+0000-001F, U+007F-009F (C0, DEL, C1), U+061C, U+200E, U+200F,
  # U+202A-202E, U+2066-2069 (bidi marks, embeddings, overrides, isolates),
  # U+2028, U+2029 (line and paragraph separators) or U+FEFF. A user holding
  # one answers InvalidParameter(user). Joiners (U+200C, U+200D) are allowed.
  user: string,
  # 32 lowercase hex digits identifying the key pair.
  keyId: string,
  # Tells apart several credentials of one user (one per relying party or app).
  # 1-256 bytes of UTF-8, under the same rule as user (else InvalidParameter(label)).
  label: ?string,
  # The raw 32-byte Ed25519 public key, standard base64.
  publicKey: string,
  # The uid that registered the credential.
  ownerUid: int,
  createdAt: string,
  # The last successful Authenticate, if any.
  lastUsedAt: ?string,
  # Consecutive wrong PINs since the last success.
  failedAttempts: int,
  # Wrong PINs left before the credential is blocked or wiped.
  remainingAttempts: int,
  state: (active, throttled, blocked, pendingUnregistration),
  # While throttled: the earliest time a PIN is checked again.
  lockedUntil: ?string,
  # While pendingUnregistration: when the pending unregistration lapses.
  unregistrationExpiresAt: ?string
)

# The PIN policy and lockout rules in force.
type PinPolicy (
  minLength: int,
  maxLength: int,
  digitsOnly: bool,
  # No one character may occur more often than this.
  maxIdenticalDigits: int,
  # Whether a PIN that is wholly an ascending or descending run is allowed.
  allowSequences: bool,
  # Number of PINs on the deny list.
  denyListSize: int,
  # Consecutive wrong PINs after which a credential is throttled.
  throttleAfter: int,
  # Consecutive wrong PINs after which onMaxAttempts applies.
  maxAttempts: int,
  onMaxAttempts: (block, wipe)
)

# Counters of the running daemon since it started.
type Stats (
  # Method calls answered.
  requests: int,
  authenticationsSucceeded: int,
  authenticationsFailed: int,
  # Times a credential was throttled, blocked or wiped for wrong PINs.
  lockouts: int,
  # KDF jobs waiting for a worker.
  kdfQueueDepth: int,
  # KDF jobs running now.
  kdfRunning: int,
  # Argon2id evaluations run since start: one per PIN checked, one per seal made
  # (Register, ChangePin, upgrade on use). LockedOut, Busy and blocked answers run none.
  kdfEvaluations: int,
  # Client connections open now.
  activeConnections: int,
  uptimeSeconds: int
)

# The PIN policy and lockout rules in force.
method GetPolicy() -> (policy: PinPolicy)

# Checks a candidate PIN against the policy, without storing or counting anything.
# violations lists every rule it breaks, in this order: empty, notDigits,
# tooShort, tooLong, tooManyIdenticalDigits, sequential, denyListed.
method CheckPin(pin: string) -> (valid: bool, violations: []string)

# Creates a credential for the caller's uid: a fresh seed sealed under the PIN.
method Register(user: string, pin: string, label: ?string) -> (credential: Credential)

# The caller's credentials, of one user or all. Admins may pass ownerUid.
method List(user: ?string, ownerUid: ?int) -> (credentials: []Credential)

# Signs exactly the challenge bytes (1-1024, base64) with the credential's key
# once the PIN is right. keyId may be omitted when the user holds one credential.
# pinPolicyOutdated is true when the PIN no longer meets the current policy.
# Admins may pass ownerUid to use another uid's credential (the PAM module, run
# as root by login or sudo, signs in that user with the user's own PIN).
method Authenticate(user: string, keyId: ?string, pin: string, challenge: string, ownerUid: ?int) -> (keyId: string, publicKey: string, signature: string, pinPolicyOutdated: bool)

# Replaces the PIN after checking the current one; the new PIN must meet the
# policy and differ from the current one (sameAsCurrent).
method ChangePin(user: string, keyId: ?string, currentPin: string, newPin: string) -> (credential: Credential)

# First phase of deleting a credential: checks the PIN (admins may omit it) and
# returns a one-time token (32 random bytes, base64url without padding). The
# credential is unusable until CommitUnregister, AbortUnregister or expiresAt.
method BeginUnregister(user: string, keyId: ?string, pin: ?string) -> (keyId: string, token: string, expiresAt: string)

# Second phase: deletes the credential of a pending unregistration.
method CommitUnregister(keyId: string, token: string) -> ()

# Cancels a pending unregistration; the credential is active again.
method AbortUnregister(keyId: string, token: string) -> ()

# Deletes every credential of user (for the caller's uid, or ownerUid for an admin)
# in one transaction, after checking the PIN of keyId or of the only credential.
# Admins may omit the PIN.
method Wipe(user: string, keyId: ?string, pin: ?string, ownerUid: ?int) -> (user: string, deletedKeyIds: []string)

# Admin only: clears the failure count of a blocked or throttled credential.
method Unblock(ownerUid: int, user: string, keyId: string) -> (credential: Credential)

# Admin only: deletes every credential of every uid. confirm must be "RESET".
method Reset(confirm: string) -> (deletedCount: int)

# Admin only: counters of the running daemon. They add up every uid's calls,
# so a non-admin is refused: they would show when other users authenticate.
method GetStats() -> (counters: Stats)

# The PIN is wrong; the failure was counted.
error WrongPin (remainingAttempts: int)

# Too many wrong PINs: no PIN is checked before retryAfterSeconds have passed.
# This call was not counted.
error LockedOut (retryAfterSeconds: int)

# Too many wrong PINs: only an admin Unblock revives the credential.
error CredentialBlocked ()

# Too many wrong PINs: the credential has been deleted.
error CredentialWiped ()

# The new PIN breaks the policy; violations as in CheckPin, plus sameAsCurrent.
error PinPolicyViolation (violations: []string)

# No such credential for the caller (another uid's credential is reported so too).
error NoSuchCredential ()

# keyId was omitted but the user holds several credentials.
error AmbiguousCredential (keyIds: []string)

# The per-user or per-uid limit of credentials is reached.
error TooManyCredentials (limit: int)

# An unregistration is pending on the credential until expiresAt.
error UnregistrationPending (expiresAt: string)

# The unregistration token is wrong, or nothing is pending for that keyId.
error InvalidToken ()

# The KDF queue is full; retry after retryAfterMilliseconds. Nothing was counted.
error Busy (retryAfterMilliseconds: int)

# The daemon could not finish the call: its store or the system failed (a full
# disk, say). Nothing was changed and no PIN attempt was counted against the
# caller for it; the daemon's log says what failed. Not in the original contract:
# without it such a failure would have no honest answer.
error InternalError ()

"""#
}
