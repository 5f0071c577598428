import CSodium

/// The one place libsodium is initialised.
///
/// `sodium_init()` is idempotent and thread-safe, but it must have run before any
/// other libsodium call; a global `let` gives exactly-once, thread-safe laziness.
enum Sodium {
    private static let initialized: Bool = sodium_init() >= 0

    /// Ensures libsodium is ready, or throws if it could not initialise
    /// (no entropy source, for instance).
    static func ensureInitialized() throws(CryptoError) {
        guard initialized else { throw CryptoError.sodiumUnavailable }
    }
}
