import PinVaultCrypto

/// One discoverable credential (a passkey) made with an authenticator credential
/// (purpose `webauthn`): what a relying party said of it, and its public key. Public data
/// only: its private key is derived from the authenticator's sealed seed and the
/// credential id (`PasskeySeed`), never stored.
public struct PasskeyRecord: Equatable, Sendable {
    /// The random credential id the relying party keeps (16–32 bytes).
    public var credentialId: [UInt8]
    /// The authenticator credential whose seed derives the key.
    public var authenticatorKeyId: KeyID
    public var ownerUid: UInt32
    /// The relying party's id, as it named itself (1–255 bytes of UTF-8).
    public var rpId: String
    /// SHA-256 of `rpId`: what binds the key, and what a request names.
    public var rpIdHash: [UInt8]
    /// The relying party's handle of its user (1–64 bytes).
    public var userHandle: [UInt8]
    /// The user's name and display name, at most 64 bytes each (CTAP lets an
    /// authenticator truncate them so).
    public var userName: String?
    public var displayName: String?
    public var algorithm: KeyAlgorithm
    public var publicKey: [UInt8]
    public var createdAt: Int64

    public init(
        credentialId: [UInt8], authenticatorKeyId: KeyID, ownerUid: UInt32, rpId: String, rpIdHash: [UInt8],
        userHandle: [UInt8], userName: String?, displayName: String?, algorithm: KeyAlgorithm, publicKey: [UInt8],
        createdAt: Int64
    ) {
        self.credentialId = credentialId
        self.authenticatorKeyId = authenticatorKeyId
        self.ownerUid = ownerUid
        self.rpId = rpId
        self.rpIdHash = rpIdHash
        self.userHandle = userHandle
        self.userName = userName
        self.displayName = displayName
        self.algorithm = algorithm
        self.publicKey = publicKey
        self.createdAt = createdAt
    }
}
