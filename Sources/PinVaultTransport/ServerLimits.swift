/// What the server enforces on every socket it serves (`[server]` and `[access]` in
/// docs/OPERATIONS.md): who may connect, how many at once, how long one may idle.
/// The size of one message is each door's own (`Framing.maxMessageBytes`).
public struct ServerLimits: Sendable {
    public var maxConnections: Int
    public var maxConnectionsPerUid: Int
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
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.exitOnIdleSeconds = exitOnIdleSeconds
        self.allowedGroups = allowedGroups
        self.adminGroup = adminGroup
        self.shutdownGraceSeconds = shutdownGraceSeconds
    }
}
