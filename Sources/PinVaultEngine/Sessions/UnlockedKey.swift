import PinVaultCrypto

/// One unlock session: a credential's key, open for its owner uid until a monotonic
/// deadline (`SessionTable`). Engine state only: nothing of it is stored, and it dies
/// with the daemon.
final class UnlockedKey {
    let keyId: KeyID
    /// The credential's owner: the only uid that may sign with it, list it or lock it.
    let owner: UInt32
    let user: String
    let label: String?
    /// What the key is for, as its record (sealed header and all) said when it opened.
    let purpose: KeyPurpose
    /// The key, inaccessible between signatures (`ProtectedSigningKey`).
    let key: ProtectedSigningKey
    /// `MonotonicClock` nanoseconds (or the engine's injected clock) after which the
    /// session signs nothing more.
    var deadline: UInt64
    /// The wall-clock end the Unlock reported (Unix seconds), for views to repeat.
    var wallUntil: Int64
    /// The connection whose end ends the session (`bindToConnection`), if any.
    var boundConnection: UInt64?
    /// Confirmation and forwarding, as the last Unlock said.
    var constraints: SessionConstraints
    /// The OpenSSH certificates attached to the credential, offered with the key.
    var certificates: [[UInt8]]
    /// Signatures made, for the audit line at the session's end.
    var signatures = 0

    init(keyId: KeyID, owner: UInt32, user: String, label: String?, purpose: KeyPurpose, key: ProtectedSigningKey,
         deadline: UInt64, wallUntil: Int64, boundConnection: UInt64?, constraints: SessionConstraints,
         certificates: [[UInt8]]) {
        self.keyId = keyId
        self.owner = owner
        self.user = user
        self.label = label
        self.purpose = purpose
        self.key = key
        self.deadline = deadline
        self.wallUntil = wallUntil
        self.boundConnection = boundConnection
        self.constraints = constraints
        self.certificates = certificates
    }

    var publicKey: [UInt8] { key.publicKey }
    var algorithm: KeyAlgorithm { key.algorithm }
}

/// Why a session ended (the audit line says it; never free text).
public enum SessionEnd: String, Sendable {
    /// `Lock`, or the ssh-agent's REMOVE_IDENTITY / REMOVE_ALL_IDENTITIES.
    case locked = "lock"
    /// Its `unlockedUntil` passed.
    case expired
    /// The unlocking connection closed (`bindToConnection`).
    case connectionClosed = "connection.closed"
    /// ChangePin, BeginUnregister, CommitUnregister, Wipe, a block or wipe by wrong
    /// PINs, Unblock or Reset touched the credential.
    case credentialChanged = "credential.changed"
    /// The daemon stops.
    case daemonExit = "daemon.exit"
}

/// An unlocked credential as its owner sees it (REQUEST_IDENTITIES, `Credential.unlockedUntil`).
public struct UnlockedKeyView: Sendable, Equatable {
    public let keyId: KeyID
    public let user: String
    public let label: String?
    public let purpose: KeyPurpose
    public let algorithm: KeyAlgorithm
    /// The raw public key (`KeyAlgorithm`).
    public let publicKey: [UInt8]
    /// The OpenSSH certificates of the key that an agent offers beside it.
    public let certificates: [[UInt8]]
    /// Unix seconds: when the session ends unless locked or extended first.
    public let unlockedUntil: Int64
}
