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

    /// Calls `body` with `bytes` as libsodium's `const unsigned char *` and its length.
    /// The pointer is never null: an empty Swift buffer may have no base address, and
    /// libsodium takes a pointer even for zero bytes.
    static func withInput<R>(
        _ bytes: UnsafeRawBufferPointer,
        _ body: (UnsafePointer<UInt8>, Int) -> R
    ) -> R {
        if let base = bytes.baseAddress {
            return body(base.assumingMemoryBound(to: UInt8.self), bytes.count)
        }
        let placeholder: UInt8 = 0
        return withUnsafePointer(to: placeholder) { body($0, 0) }
    }
}
