/// What `wipe` deleted: every credential of one account.
public struct WipeResult: Equatable, Sendable {
    /// The account wiped.
    public var user: String
    /// The keyIds of the credentials deleted.
    public var deletedKeyIds: [String]
    /// The wrong PINs this call's right PIN cleared (`Authentication.failedAttemptsCleared`);
    /// 0 when an admin gave no PIN.
    public var failedAttemptsCleared: Int

    /// Each field as given.
    public init(user: String, deletedKeyIds: [String], failedAttemptsCleared: Int = 0) {
        self.user = user
        self.deletedKeyIds = deletedKeyIds
        self.failedAttemptsCleared = failedAttemptsCleared
    }
}
