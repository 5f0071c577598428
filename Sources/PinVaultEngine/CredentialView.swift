import PinVaultCrypto

/// A credential as its owner (or an admin) sees it at one instant: the stored fields
/// that are not secret, and the state the lockout rules give them then.
public struct CredentialView: Sendable, Equatable {
    public enum State: Sendable, Equatable {
        case active, throttled, blocked, pendingUnregistration
    }

    public let user: String
    public let keyId: KeyID
    public let label: String?
    /// What the key is for (`legacy`: made before purposes existed).
    public let purpose: KeyPurpose
    /// The key's algorithm.
    public let algorithm: KeyAlgorithm
    /// The raw public key (`KeyAlgorithm`).
    public let publicKey: [UInt8]
    public let ownerUid: UInt32
    /// Unix seconds.
    public let createdAt: Int64
    public let lastUsedAt: Int64?
    public let failedAttempts: Int
    public let remainingAttempts: Int
    public let state: State
    /// Set while throttled.
    public let lockedUntil: Int64?
    /// Set while an unregistration is pending.
    public let unregistrationExpiresAt: Int64?
    /// Set while an unlock session of the owner is open on it (Unix seconds).
    public let unlockedUntil: Int64?
    /// The OpenSSH certificate blobs attached to it (an `ssh` credential's), where the
    /// answer carries them (List, and the certificate calls).
    public let sshCertificates: [[UInt8]]
}
