import PinVaultCrypto

/// The wire form of `io.pinvault.Vault.Credential`: what a caller may see of one
/// credential. Holds no secret. Times are Unix seconds here, RFC 3339 on the wire; the
/// public key is raw bytes here, standard base64 on the wire.
public struct VaultCredential: Equatable, Sendable {
    /// `state`: where the credential is in its lifecycle.
    public enum State: String, CaseIterable, Sendable {
        /// Usable.
        case active
        /// Waiting out a throttle after wrong PINs (`lockedUntil`).
        case throttled
        /// Blocked after `maxAttempts` wrong PINs, until an admin `Unblock`.
        case blocked
        /// Between `BeginUnregister` and commit, abort or expiry.
        case pendingUnregistration
    }

    /// `purpose`: what the key is for (`KeyPurpose`, generated from this very field of
    /// the interface). A daemon of the second release sends none: such a credential is
    /// `legacy`.
    public typealias Purpose = KeyPurpose

    /// The account name.
    public var user: String
    /// 32 lowercase hex digits.
    public var keyId: String
    /// Optional label telling a user's credentials apart.
    public var label: String?
    /// What the key is for.
    public var purpose: Purpose
    /// `algorithm`: the key's (`KeyAlgorithm`). A daemon before the fourth release sends
    /// none: such a credential is Ed25519.
    public var algorithm: KeyAlgorithm
    /// The raw public key, of the size its algorithm's is.
    public var publicKey: [UInt8]
    /// The registering uid.
    public var ownerUid: UInt32
    /// Creation time, Unix seconds.
    public var createdAt: Int64
    /// Last successful authentication, Unix seconds.
    public var lastUsedAt: Int64?
    /// Consecutive wrong PINs.
    public var failedAttempts: Int64
    /// Wrong PINs left before block or wipe.
    public var remainingAttempts: Int64
    /// Lifecycle state.
    public var state: State
    /// End of the current throttle, Unix seconds.
    public var lockedUntil: Int64?
    /// When a pending unregistration lapses, Unix seconds.
    public var unregistrationExpiresAt: Int64?
    /// When the owner's unlock session on it ends, Unix seconds.
    public var unlockedUntil: Int64?
    /// An ssh credential's OpenSSH certificate blobs (empty: none, or not answered).
    public var sshCertificates: [[UInt8]]

    /// Each field as given.
    public init(
        user: String, keyId: String, label: String?, purpose: Purpose, algorithm: KeyAlgorithm = .default,
        publicKey: [UInt8], ownerUid: UInt32,
        createdAt: Int64, lastUsedAt: Int64?, failedAttempts: Int64, remainingAttempts: Int64,
        state: State, lockedUntil: Int64?, unregistrationExpiresAt: Int64?, unlockedUntil: Int64? = nil,
        sshCertificates: [[UInt8]] = []
    ) {
        self.user = user
        self.keyId = keyId
        self.label = label
        self.purpose = purpose
        self.algorithm = algorithm
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
        self.sshCertificates = sshCertificates
    }

    /// Decodes a `Credential` object.
    public init(from object: ParameterDecoder) throws(ParameterError) {
        let count: ClosedRange<Int64> = 0...Int64.max
        user = try object.string("user", required: true, bytes: ProtocolLimits.userBytes) ?? ""
        keyId = try object.keyID(required: true)?.hex ?? ""
        label = try object.string("label", required: false, bytes: ProtocolLimits.labelBytes)
        purpose = try object.enumeration("purpose", required: false, as: Purpose.self) ?? .legacy
        algorithm = try object.enumeration("algorithm", required: false, as: KeyAlgorithm.self) ?? .default
        publicKey = try object.base64("publicKey", required: true, decodedBytes: ProtocolLimits.publicKeyBytes) ?? []
        guard algorithm.isWellFormed(publicKey: publicKey) else { throw ParameterError("publicKey", .malformed) }
        ownerUid = UInt32(try object.int("ownerUid", required: true, range: ProtocolLimits.uidRange) ?? 0)
        createdAt = try object.time("createdAt", required: true) ?? 0
        lastUsedAt = try object.time("lastUsedAt", required: false)
        failedAttempts = try object.int("failedAttempts", required: true, range: count) ?? 0
        remainingAttempts = try object.int("remainingAttempts", required: true, range: count) ?? 0
        state = try object.enumeration("state", required: true, as: State.self) ?? .active
        lockedUntil = try object.time("lockedUntil", required: false)
        unregistrationExpiresAt = try object.time("unregistrationExpiresAt", required: false)
        unlockedUntil = try object.time("unlockedUntil", required: false)
        sshCertificates = try object.base64Strings("sshCertificates", decodedBytes: ProtocolLimits.certificateBytes)
    }

    /// Writes the object's fields (absent optionals are omitted).
    public func writeFields(_ object: inout JSONObjectWriter) {
        object.field("user", user)
        object.field("keyId", keyId)
        object.optionalField("label", label)
        object.field("purpose", purpose.rawValue)
        object.field("algorithm", algorithm.name)
        object.field("publicKey", Base64.encodedString(publicKey))
        object.field("ownerUid", Int64(ownerUid))
        object.field("createdAt", RFC3339.string(fromUnixSeconds: createdAt))
        object.optionalField("lastUsedAt", lastUsedAt.map(RFC3339.string(fromUnixSeconds:)))
        object.field("failedAttempts", failedAttempts)
        object.field("remainingAttempts", remainingAttempts)
        object.field("state", state.rawValue)
        object.optionalField("lockedUntil", lockedUntil.map(RFC3339.string(fromUnixSeconds:)))
        object.optionalField("unregistrationExpiresAt", unregistrationExpiresAt.map(RFC3339.string(fromUnixSeconds:)))
        object.optionalField("unlockedUntil", unlockedUntil.map(RFC3339.string(fromUnixSeconds:)))
        if !sshCertificates.isEmpty {
            object.field("sshCertificates", strings: sshCertificates.map { Base64.encodedString($0) })
        }
    }
}
