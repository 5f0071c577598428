import CSodium

/// What a CTAP client sends to check a security-key PIN: LEFT(SHA-256(PIN), 16), never
/// the PIN itself (CTAP 2.1 §6.5.5.7, `pinHashEnc`). The authenticator credential of
/// purpose `webauthn` is sealed under these 16 bytes, as if they were its PIN, so that a
/// PIN check from CTAP and from PinVault's own doors (which take the PIN and hash it
/// here) open the same record (docs/FORMAT.md). The PIN policy applies to the PIN
/// itself, where CTAP sends it (setPIN, changePIN) and at Register.
public enum SecurityKeyPin {
    /// The size of what CTAP sends: the first half of the digest.
    public static let hashSize = 16

    /// LEFT(SHA-256(pin), 16), in secret memory; the full digest is zeroed.
    public static func hash(_ pin: SecretBytes) throws(CryptoError) -> SecretBytes {
        try Sodium.ensureInitialized()
        let digest = try SecretBytes(zeroed: SHA256.digestSize)
        pin.withUnsafeBytes { input in
            digest.withSodiumPointer { output in
                _ = Sodium.withInput(input) { crypto_hash_sha256(output, $0, UInt64($1)) }
            }
        }
        digest.truncate(to: hashSize)
        return digest
    }
}
