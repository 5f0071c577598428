import FoundationEssentials

/// The first phase of an unregistration: the credential is unusable until the token is
/// presented to `commitUnregister` (delete) or `abortUnregister`, or until `expiresAt`.
///
/// Not `Codable` and not `Equatable`: it holds the secret token.
public struct PendingUnregistration: Sendable {
    /// The credential being unregistered.
    public var keyId: String
    /// The one-time token to commit or abort with.
    public var token: UnregistrationToken
    /// When the pending unregistration lapses and the credential is active again.
    public var expiresAt: Date
    /// The wrong PINs this call's right PIN cleared (`Authentication.failedAttemptsCleared`);
    /// 0 when an admin gave no PIN.
    public var failedAttemptsCleared: Int

    /// Each field as given.
    public init(keyId: String, token: UnregistrationToken, expiresAt: Date, failedAttemptsCleared: Int = 0) {
        self.keyId = keyId
        self.token = token
        self.expiresAt = expiresAt
        self.failedAttemptsCleared = failedAttemptsCleared
    }
}
