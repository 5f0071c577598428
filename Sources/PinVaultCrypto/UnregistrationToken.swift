/// The second factor of a two-phase unregistration: 32 random bytes handed to the
/// caller once; only their BLAKE2b-256 is stored.
public enum UnregistrationToken {
    /// Bytes of token.
    public static let size = 32

    /// A fresh token in secret memory.
    public static func generate() throws(CryptoError) -> SecretBytes {
        try SecretBytes.random(count: size)
    }

    /// The unkeyed BLAKE2b-256 of a 32-byte token, the only form that is stored.
    /// Compare stored and presented hashes with `ConstantTime.equals`.
    public static func hash(_ token: SecretBytes) throws(CryptoError) -> [UInt8] {
        guard token.count == size else { throw CryptoError.invalidLength("token") }
        return try token.withUnsafeBytes { (bytes) throws(CryptoError) in
            try BLAKE2b.hash(bytes, outputLength: 32)
        }
    }
}
