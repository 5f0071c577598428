import PinVaultCrypto

/// One stored credential: the sealed seed with its authenticated header, the public key,
/// and the mutable state (use, failures, lockout, pending unregistration).
public struct CredentialRecord: Hashable, Sendable {
    /// Largest `user`, in UTF-8 bytes.
    public static let maxUserBytes = 256

    /// The sealed seed; its header holds owner uid, user, key id, KDF parameters, salt and
    /// format version.
    public var sealed: SealedSeed
    /// Tells several credentials of one user apart.
    public var label: String?
    /// The raw public key (`KeyAlgorithm`: its size is the algorithm's).
    public var publicKey: [UInt8]
    /// Unix seconds.
    public var createdAt: Int64
    /// Unix seconds of the last successful use.
    public var lastUsedAt: Int64?
    /// Consecutive wrong PINs: what the lockout counts, and an admin's Unblock clears.
    public var failedAttempts: Int
    /// Wrong PINs since the last right one, whatever an admin did meanwhile: only a right
    /// PIN clears it (and reports it as `failedAttemptsCleared`). At least `failedAttempts`.
    public var wrongPinsSinceSuccess: Int
    /// Unix seconds until which PIN attempts are refused.
    public var lockedUntil: Int64?
    /// Set between BeginUnregister and CommitUnregister/AbortUnregister/expiry.
    public var pendingUnregistration: PendingUnregistration?

    public init(
        sealed: SealedSeed,
        label: String? = nil,
        publicKey: [UInt8],
        createdAt: Int64,
        lastUsedAt: Int64? = nil,
        failedAttempts: Int = 0,
        wrongPinsSinceSuccess: Int = 0,
        lockedUntil: Int64? = nil,
        pendingUnregistration: PendingUnregistration? = nil
    ) {
        self.sealed = sealed
        self.label = label
        self.publicKey = publicKey
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.failedAttempts = failedAttempts
        self.wrongPinsSinceSuccess = wrongPinsSinceSuccess
        self.lockedUntil = lockedUntil
        self.pendingUnregistration = pendingUnregistration
    }

    /// The credential's identifier (from the sealed header).
    public var keyId: KeyID { sealed.header.keyId }
    /// The uid that registered it (from the sealed header).
    public var ownerUid: UInt32 { sealed.header.ownerUid }
    /// The account name (from the sealed header).
    public var user: String { sealed.header.user }
    /// What the key is for (from the sealed header; `legacy` for a format-1 record).
    public var purpose: KeyPurpose { sealed.header.purpose }
    /// The key's algorithm (from the sealed header; Ed25519 for formats 1 and 2).
    public var algorithm: KeyAlgorithm { sealed.header.algorithm }
}
