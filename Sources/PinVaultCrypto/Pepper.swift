/// The 32-byte key that, besides the PIN, protects every sealed seed. Without it a
/// stolen database allows no offline PIN guessing. Held only in secret memory.
public final class Pepper: Sendable {
    /// `crypto_generichash_KEYBYTES`.
    public static let size = 32

    /// The key bytes; read them only through `SecretBytes.withUnsafeBytes`.
    public let secret: SecretBytes

    /// Wraps exactly 32 secret bytes.
    public init(secret: SecretBytes) throws(CryptoError) {
        guard secret.count == Self.size else { throw CryptoError.invalidLength("pepper") }
        self.secret = secret
    }

    /// A fresh random pepper.
    public static func generate() throws(CryptoError) -> Pepper {
        try Pepper(secret: SecretBytes.random(count: size))
    }
}
