/// What the server enforces on every socket it serves (`[server]` and `[access]` in
/// docs/OPERATIONS.md): who may connect, how many at once, how long one may idle.
/// The size of one message is each door's own (`Framing.maxMessageBytes`).
public struct ServerLimits: Sendable {
    public var maxConnections: Int
    public var maxConnectionsPerUid: Int
    /// The last places under `maxConnections` that only admins may take, so that a user
    /// holding many uids (a subordinate uid range) cannot shut root and the admin group
    /// out: 16, or a quarter of `maxConnections` when that is under 64.
    public var adminReservedConnections: Int
    public var idleTimeoutSeconds: Int
    /// After this long with no connection and no work, `run` returns (`.idle`); 0 never.
    public var exitOnIdleSeconds: Int
    /// Empty: every local user may connect.
    public var allowedGroups: Set<UInt32>
    public var adminGroup: UInt32?
    /// How long a graceful stop waits for messages in flight.
    public var shutdownGraceSeconds: Int

    public init(
        maxConnections: Int, maxConnectionsPerUid: Int, idleTimeoutSeconds: Int, exitOnIdleSeconds: Int = 0,
        allowedGroups: Set<UInt32>, adminGroup: UInt32?, shutdownGraceSeconds: Int = 15
    ) {
        self.maxConnections = maxConnections
        self.maxConnectionsPerUid = maxConnectionsPerUid
        self.adminReservedConnections = Self.adminReserve(maxConnections: maxConnections)
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.exitOnIdleSeconds = exitOnIdleSeconds
        self.allowedGroups = allowedGroups
        self.adminGroup = adminGroup
        self.shutdownGraceSeconds = shutdownGraceSeconds
    }

    /// `adminReservedConnections` for `maxConnections`.
    public static func adminReserve(maxConnections: Int) -> Int {
        min(16, max(maxConnections, 0) / 4)
    }
}
