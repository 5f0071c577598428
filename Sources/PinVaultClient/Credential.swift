import FoundationEssentials
import PinVaultCrypto

/// One credential as its owner (or an admin) sees it: who it belongs to, its public key
/// and its lockout state. Holds no secret.
public struct Credential: Equatable, Sendable {
    /// Where a credential is in its lifecycle.
    public enum State: String, Sendable, CaseIterable {
        /// Usable.
        case active
        /// Waiting out a throttle after wrong PINs, until `lockedUntil`.
        case throttled
        /// Blocked after too many wrong PINs, until an admin unblocks it.
        case blocked
        /// Between `beginUnregister` and commit, abort or `unregistrationExpiresAt`.
        case pendingUnregistration
    }

    /// What a credential's key is for, chosen at registration and never changed: which
    /// calls and agents may use it (the daemon answers `wrongPurpose` to any other).
    /// `authenticate` (the default) signs a relying party's challenges; `ssh` is offered
    /// by the ssh-agent sockets once unlocked; `login` is pam_pinvault's; `webauthn` is a
    /// security key's PIN, which no Varlink method signs with; `legacy` was made before
    /// purposes existed and is never registered anew. `Purpose.registrable` lists those
    /// `register` takes. A daemon of a later release may know more purposes than this
    /// library: its reply is then malformed, as for any value the interface does not name.
    public typealias Purpose = KeyPurpose

    /// The signature algorithm of a credential's key, chosen at registration and never
    /// changed: `.ed25519` (a 32-byte public key, 64-byte signatures; the default) or
    /// `.p256` (ECDSA over NIST P-256 with SHA-256: a 65-byte SEC1 uncompressed public
    /// key, DER-encoded signatures of at most 72 bytes). Its `verify(signature:message:
    /// publicKey:)` checks a signature as a relying party would.
    public typealias Algorithm = KeyAlgorithm

    /// The account name (1-256 bytes of UTF-8).
    public var user: String
    /// 32 lowercase hex digits identifying the key pair.
    public var keyId: String
    /// Tells apart several credentials of one user.
    public var label: String?
    /// What the key is for.
    public var purpose: Purpose
    /// The key's algorithm.
    public var algorithm: Algorithm
    /// The raw public key (`algorithm`'s: 32 bytes for Ed25519, 65 for P-256).
    public var publicKey: [UInt8]
    /// The uid that registered the credential.
    public var ownerUid: UInt32
    /// When it was registered.
    public var createdAt: Date
    /// The last successful authentication, if any.
    public var lastUsedAt: Date?
    /// Consecutive wrong PINs since the last success.
    public var failedAttempts: Int
    /// Wrong PINs left before the credential is blocked or wiped.
    public var remainingAttempts: Int
    /// Lifecycle state.
    public var state: State
    /// While throttled: the earliest time a PIN is checked again.
    public var lockedUntil: Date?
    /// While pending unregistration: when it lapses.
    public var unregistrationExpiresAt: Date?
    /// While an unlock session of the owner is open on it: when it ends.
    public var unlockedUntil: Date?
    /// An `ssh` credential's OpenSSH certificate blobs (List and the certificate calls).
    public var sshCertificates: [[UInt8]]

    /// Each field as given.
    public init(
        user: String, keyId: String, label: String?, publicKey: [UInt8], ownerUid: UInt32,
        createdAt: Date, lastUsedAt: Date?, failedAttempts: Int, remainingAttempts: Int,
        state: State, lockedUntil: Date?, unregistrationExpiresAt: Date?, unlockedUntil: Date? = nil,
        purpose: Purpose = .authenticate, algorithm: Algorithm = .default, sshCertificates: [[UInt8]] = []
    ) {
        self.user = user
        self.keyId = keyId
        self.label = label
        self.publicKey = publicKey
        self.ownerUid = ownerUid
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.failedAttempts = failedAttempts
        self.remainingAttempts = remainingAttempts
        self.state = state
        self.lockedUntil = lockedUntil
        self.unregistrationExpiresAt = unregistrationExpiresAt
        self.unlockedUntil = unlockedUntil
        self.purpose = purpose
        self.algorithm = algorithm
        self.sshCertificates = sshCertificates
    }
}
