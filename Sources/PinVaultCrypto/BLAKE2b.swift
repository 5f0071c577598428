import CSodium

/// BLAKE2b through libsodium's `crypto_generichash`, unkeyed or keyed.
public enum BLAKE2b {
    /// Shortest output libsodium documents (`crypto_generichash_BYTES_MIN`).
    public static let minimumOutputLength = 16
    /// Longest output (`crypto_generichash_BYTES_MAX`).
    public static let maximumOutputLength = 64
    /// Shortest key libsodium documents (`crypto_generichash_KEYBYTES_MIN`).
    public static let minimumKeyLength = 16
    /// Longest key (`crypto_generichash_KEYBYTES_MAX`).
    public static let maximumKeyLength = 64

    /// The BLAKE2b digest of `message`, `outputLength` bytes long (16–64), keyed with
    /// `key` (16–64 bytes) when given. For public values; secret digests use the
    /// `SecretBytes` variant.
    public static func hash(
        _ message: UnsafeRawBufferPointer,
        key: UnsafeRawBufferPointer? = nil,
        outputLength: Int = 32
    ) throws(CryptoError) -> [UInt8] {
        try checkOutputLength(outputLength)
        var digest = [UInt8](repeating: 0, count: outputLength)
        try digest.withUnsafeMutableBufferPointer { (buffer) throws(CryptoError) in
            guard let output = buffer.baseAddress else { throw CryptoError.invalidLength("output") }
            try hash(message, key: key, output: output, outputLength: outputLength)
        }
        return digest
    }

    /// The digest of `message` written into `output`, whose `count` is the output length:
    /// for derived keys, which must never sit in an `Array`.
    static func hash(
        _ message: UnsafeRawBufferPointer,
        key: UnsafeRawBufferPointer?,
        into output: SecretBytes
    ) throws(CryptoError) {
        try checkOutputLength(output.count)
        try output.withSodiumPointer { (pointer) throws(CryptoError) in
            try hash(message, key: key, output: pointer, outputLength: output.count)
        }
    }

    private static func checkOutputLength(_ length: Int) throws(CryptoError) {
        guard (minimumOutputLength...maximumOutputLength).contains(length) else {
            throw CryptoError.invalidLength("output")
        }
    }

    private static func hash(
        _ message: UnsafeRawBufferPointer,
        key: UnsafeRawBufferPointer?,
        output: UnsafeMutablePointer<UInt8>,
        outputLength: Int
    ) throws(CryptoError) {
        try Sodium.ensureInitialized()
        // An empty key would silently mean "unkeyed": only nil may mean that.
        if let key, !(minimumKeyLength...maximumKeyLength).contains(key.count) {
            throw CryptoError.invalidLength("key")
        }
        let result = Sodium.withInput(message) { messagePointer, messageLength in
            guard let key else {
                return crypto_generichash(output, outputLength, messagePointer, UInt64(messageLength), nil, 0)
            }
            return Sodium.withInput(key) { keyPointer, keyLength in
                crypto_generichash(
                    output, outputLength, messagePointer, UInt64(messageLength), keyPointer, keyLength
                )
            }
        }
        guard result == 0 else { throw CryptoError.invalidLength("output") }
    }
}
