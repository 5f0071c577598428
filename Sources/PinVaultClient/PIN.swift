import FoundationEssentials
import PinVaultCrypto
import PinVaultSystem

/// A PIN in locked secret memory (`sodium_malloc`), zeroed when it is released.
///
/// Single use: the client copies the PIN's bytes straight into the zeroing buffer of the
/// call that carries it and wipes the PIN at once, before the call is sent (and also when
/// the call fails before that). Passing a consumed PIN throws `PinVaultError.pinConsumed`.
///
/// The bytes are never exposed: there is no `description`, no `Codable`, and equality
/// is `constantTimeEquals`. All members may be used from any thread (internally locked).
public final class PIN: @unchecked Sendable {
    /// Guards `secret` and `consumed`.
    private let lock = ConditionLock()
    /// The PIN's bytes; nil once a call took them, or when secret memory could not be
    /// allocated.
    private var secret: SecretBytes?
    /// Set by `wipe()`; a consumed PIN stays consumed.
    private var consumed = false

    /// Fills up to `capacity` bytes of secret memory straight from `body`, which returns
    /// how many bytes it wrote (clamped to `0...capacity`). Read a terminal or a file
    /// descriptor through this, so that the PIN is never in a Swift `String` or `Array`.
    /// A trailing newline is not stripped here.
    ///
    /// When secret memory cannot be allocated (the process is out of memory), `body` is
    /// not called and the PIN is created consumed: a call with it throws `.pinConsumed`.
    public init(capacity: Int = 256, reading body: (UnsafeMutableRawBufferPointer) throws -> Int) rethrows {
        let allocated = try? SecretBytes(capacity: max(capacity, 0))
        secret = allocated
        guard let allocated else {
            consumed = true
            return
        }
        try allocated.fill { buffer in try body(buffer) }
    }

    /// Copies `bytes` into secret memory; the caller should zero its own copy.
    public convenience init(copying bytes: some Collection<UInt8>) {
        self.init(capacity: bytes.count) { buffer in
            buffer.copyBytes(from: bytes)
            return bytes.count
        }
    }

    /// A PIN from a `String`, for apps that already hold it as one. That `String` itself
    /// cannot be wiped: prefer `init(capacity:reading:)` where the PIN is typed or read.
    public convenience init(_ string: String) {
        self.init(copying: string.utf8)
    }

    /// Bytes held; 0 once consumed.
    public var byteCount: Int {
        lock.withLock { consumed ? 0 : (secret?.count ?? 0) }
    }

    /// Whether the PIN was wiped (by `wipe()` or by a call that carried it).
    public var isConsumed: Bool {
        lock.withLock { consumed }
    }

    /// Zeroes the bytes now and marks the PIN consumed; idempotent.
    public func wipe() {
        lock.withLock {
            secret?.wipe()
            consumed = true
        }
    }

    /// Constant-time comparison of two PINs' bytes (lengths are compared openly). A
    /// consumed PIN equals only another consumed or empty one.
    public func constantTimeEquals(_ other: PIN) -> Bool {
        if other === self { return true }
        // Lock in address order, so two threads comparing a with b and b with a
        // cannot deadlock.
        let (first, second) = ObjectIdentifier(self) < ObjectIdentifier(other) ? (self, other) : (other, self)
        return first.lock.withLock {
            second.lock.withLock {
                switch (self.liveSecret, other.liveSecret) {
                case let (mine?, theirs?): mine.constantTimeEquals(theirs)
                case (nil, nil): true
                case let (mine?, nil): mine.count == 0
                case let (nil, theirs?): theirs.count == 0
                }
            }
        }
    }

    /// A second PIN with the same bytes, in secret memory of its own: for a call that
    /// consumes one (`checkPin`, before a new PIN is asked again) while the same PIN
    /// is still needed (`register`). A consumed PIN's copy is consumed.
    public func copy() -> PIN {
        let copy = lock.withLock {
            liveSecret?.withUnsafeBytes { bytes in
                PIN(capacity: bytes.count) { buffer in
                    buffer.copyMemory(from: bytes)
                    return bytes.count
                }
            }
        }
        if let copy { return copy }
        let consumed = PIN(capacity: 0) { _ in 0 }
        consumed.wipe()
        return consumed
    }

    /// Moves the bytes out for one call and marks the PIN consumed; nil when it was
    /// consumed before. The caller wipes what it took once the call frame is written.
    func take() -> SecretBytes? {
        lock.withLock {
            defer {
                secret = nil
                consumed = true
            }
            return liveSecret
        }
    }

    /// The secret unless consumed; call with `lock` held.
    private var liveSecret: SecretBytes? {
        consumed ? nil : secret
    }
}
