import CSodium

/// Random bytes for values that are not secret once made (salts, nonces). Secrets
/// come from `SecretBytes.random(count:)` instead.
public enum RandomBytes {
    /// `count` bytes from `randombytes_buf`; empty for a count of 0 or less.
    public static func make(count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        // randombytes_buf initialises itself when needed, so a failed sodium_init
        // changes nothing here; the call still makes sure it ran first.
        _ = try? Sodium.ensureInitialized()
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return bytes
    }
}
