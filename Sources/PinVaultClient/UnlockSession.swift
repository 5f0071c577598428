import FoundationEssentials

/// A successful `unlock`: the credential's key is open for the caller's uid until
/// `unlockedUntil` (or `lock`, or a change of the credential), so `sign` and the
/// daemon's ssh-agent socket need no PIN until then.
public struct UnlockSession: Equatable, Sendable {
    /// The credential unlocked.
    public var keyId: String
    /// When the session ends at the latest.
    public var unlockedUntil: Date
    /// The wrong PINs counted before this right one, which it cleared: more than 0
    /// means someone tried PINs since the last success.
    public var failedAttemptsCleared: Int

    /// Each field as given.
    public init(keyId: String, unlockedUntil: Date, failedAttemptsCleared: Int) {
        self.keyId = keyId
        self.unlockedUntil = unlockedUntil
        self.failedAttemptsCleared = failedAttemptsCleared
    }
}
