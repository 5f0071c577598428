import CSodium

/// SHA-256 through libsodium's `crypto_hash_sha256`, for public values: the OpenSSH
/// fingerprint of a key (`SHA256:` and the unpadded base64 of this digest of its blob),
/// and a WebAuthn relying party's id hash.
public enum SHA256 {
    public static let digestSize = 32

    public static func hash(_ message: UnsafeRawBufferPointer) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: digestSize)
        guard (try? Sodium.ensureInitialized()) != nil else { return digest }
        _ = Sodium.withInput(message) { pointer, length in
            crypto_hash_sha256(&digest, pointer, UInt64(length))
        }
        return digest
    }

    /// The digest of public bytes: a WebAuthn rp id's hash, say.
    public static func hash(_ message: [UInt8]) -> [UInt8] {
        message.withUnsafeBytes { hash($0) }
    }
}
