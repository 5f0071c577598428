import FoundationEssentials
import PinVaultCrypto
import PinVaultSystem

/// The one-time token of a pending unregistration, as `BeginUnregister` returned it:
/// the base64url text the daemon sent (43 characters), held in secret memory that is
/// zeroed when the token is released or wiped.
///
/// Present it to `commitUnregister` or `abortUnregister`. The client never wipes it: a
/// failed commit may be retried or aborted with the same token. It has no `description`
/// and is not `Codable`, so it cannot leak into logs by accident. Internally locked.
public final class UnregistrationToken: @unchecked Sendable {
    /// Guards `secret`.
    private let lock = ConditionLock()
    /// The token's text; nil only when secret memory could not be allocated.
    private let secret: SecretBytes?

    /// Fills up to `capacity` bytes of secret memory from `body`, which returns how many
    /// bytes it wrote (clamped to `0...capacity`): read a token a user pasted or a file
    /// holds without a Swift `String`. Trailing whitespace is not stripped here. When
    /// secret memory cannot be allocated, `body` is not called and the token is empty.
    public init(capacity: Int = 64, reading body: (UnsafeMutableRawBufferPointer) throws -> Int) rethrows {
        let allocated = try? SecretBytes(capacity: max(capacity, 0))
        secret = allocated
        guard let allocated else { return }
        try allocated.fill { buffer in try body(buffer) }
    }

    /// Copies `bytes` (the token's text) into secret memory; the caller should zero its
    /// own copy.
    public convenience init(copying bytes: some Collection<UInt8>) {
        self.init(capacity: bytes.count) { buffer in
            buffer.copyBytes(from: bytes)
            return bytes.count
        }
    }

    /// Takes ownership of a token decoded straight from a reply.
    init(secret: SecretBytes) {
        self.secret = secret
    }

    /// Reads the token's text (base64url, as the daemon sent it) inside `body` only.
    /// Do not copy it out of the closure into a `String` or `Array`.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try lock.withLock { () throws(E) -> R in
            guard let secret else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
            return try secret.withUnsafeBytes { (bytes) throws(E) -> R in try body(bytes) }
        }
    }

    /// Zeroes the token now; idempotent.
    public func wipe() {
        lock.withLock { secret?.wipe() }
    }

    /// Lends the secret (nil when it could not be allocated) to `body` under the lock,
    /// for writing it into a call frame.
    func withSecret<R>(_ body: (SecretBytes?) -> R) -> R {
        lock.withLock { body(secret) }
    }
}
