/// The first phase of a two-phase unregistration: the hash of the token handed to the
/// caller and when it lapses. While it is in force the credential is unusable.
public struct PendingUnregistration: Hashable, Sendable {
    /// Size of `tokenHash` (BLAKE2b-256).
    public static let tokenHashSize = 32

    /// Hash of the 32-byte token; the token itself is never stored.
    public var tokenHash: [UInt8]
    /// Unix seconds after which the credential is active again.
    public var expiresAt: Int64

    public init(tokenHash: [UInt8], expiresAt: Int64) {
        self.tokenHash = tokenHash
        self.expiresAt = expiresAt
    }
}
