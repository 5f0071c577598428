/// Failures of the cryptographic layer. None carries secret material.
public enum CryptoError: Error, Equatable, Sendable {
    /// libsodium could not initialise.
    case sodiumUnavailable
    /// `sodium_malloc` or Argon2id could not get the memory it needs.
    case outOfMemory
    /// An input had the wrong size; names the input, never its value.
    case invalidLength(String)
    /// Argon2id parameters outside libsodium's bounds.
    case invalidKDFParameters
    /// A sealed seed did not open: wrong PIN, wrong pepper, or a tampered or moved
    /// record. Deliberately one case: the caller cannot tell which.
    case openFailed
    /// A signature could not be produced.
    case signingFailed
    /// `mprotect` refused to change a secret buffer's protection (`SecretBytes.protect`).
    case protectionFailed
}
