/// What `wipe` deleted: every credential of one account.
public struct WipeResult: Equatable, Sendable {
    /// The account wiped.
    public var user: String
    /// The keyIds of the credentials deleted.
    public var deletedKeyIds: [String]

    /// Each field as given.
    public init(user: String, deletedKeyIds: [String]) {
        self.user = user
        self.deletedKeyIds = deletedKeyIds
    }
}
