/// The seed of a passkey: derived, never stored. A passkey's key pair is the
/// `KeyAlgorithm` key pair of this 32-byte seed, which is BLAKE2b-256 keyed with the
/// authenticator credential's sealed seed over
///
///     "pinvault passkey v1" ‖ 0x00 ‖ rpIdHash (32 bytes) ‖ credentialId (16–32 bytes)
///
/// (docs/FORMAT.md, "Passkeys"). The vault stores only the credential id and what the
/// relying party said of it; the authenticator's seed, opened by its PIN, is what makes
/// the key. A passkey of another relying party, or another credential id, is another key,
/// and nothing but the authenticator's seed derives one.
public enum PasskeySeed {
    /// The context that opens the hashed message: no other key PinVault derives shares it.
    public static let context = Array("pinvault passkey v1".utf8) + [0]
    /// A WebAuthn rp id hash: SHA-256 of the rp id.
    public static let rpIdHashSize = 32
    /// The sizes of a credential id PinVault makes: CTAP allows up to 1023 bytes; 16
    /// random bytes are unguessable, and 32 is PinVault's own.
    public static let credentialIdSizes = 16...32

    /// The seed of the passkey `credentialId` for `rpIdHash`, in secret memory.
    public static func derive(
        authenticatorSeed: SecretBytes, rpIdHash: [UInt8], credentialId: [UInt8]
    ) throws(CryptoError) -> SecretBytes {
        guard authenticatorSeed.count == KeyAlgorithm.seedSize else { throw CryptoError.invalidLength("seed") }
        guard rpIdHash.count == rpIdHashSize else { throw CryptoError.invalidLength("rpIdHash") }
        guard credentialIdSizes.contains(credentialId.count) else { throw CryptoError.invalidLength("credentialId") }
        let seed = try SecretBytes(zeroed: KeyAlgorithm.seedSize)
        let message = context + rpIdHash + credentialId
        try authenticatorSeed.withUnsafeBytes { (key) throws(CryptoError) in
            let input = UnsafeMutableRawBufferPointer.allocate(byteCount: message.count, alignment: 1)
            defer { input.deallocate() }
            input.copyBytes(from: message)
            try BLAKE2b.hash(UnsafeRawBufferPointer(input), key: key, into: seed)
        }
        return seed
    }

    /// The key pair of that passkey, of `algorithm`.
    public static func keyPair(
        algorithm: KeyAlgorithm, authenticatorSeed: SecretBytes, rpIdHash: [UInt8], credentialId: [UInt8]
    ) throws(CryptoError) -> SigningKeyPair {
        let seed = try derive(authenticatorSeed: authenticatorSeed, rpIdHash: rpIdHash, credentialId: credentialId)
        return try SigningKeyPair(algorithm: algorithm, seed: seed)
    }
}
