/// A seed sealed at rest: the authenticated header, the secretbox nonce, and
/// `crypto_secretbox_easy(seed)` (32 bytes of seed + 16 of MAC).
public struct SealedSeed: Hashable, Sendable {
    /// `crypto_secretbox_NONCEBYTES`.
    public static let nonceSize = 24
    /// Seed plus `crypto_secretbox_MACBYTES`.
    public static let ciphertextSize = 48

    public var header: RecordHeader
    public var nonce: [UInt8]
    public var ciphertext: [UInt8]

    public init(header: RecordHeader, nonce: [UInt8], ciphertext: [UInt8]) {
        self.header = header
        self.nonce = nonce
        self.ciphertext = ciphertext
    }
}
