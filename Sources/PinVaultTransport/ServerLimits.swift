import PinVaultSystem

/// What the server enforces on every socket it serves (`[server]` and `[access]` in
/// docs/OPERATIONS.md): who may connect, how many at once, how long one may idle, and
/// how much locked memory their input may take. The size of one message is each door's
/// own (`Framing.maxMessageBytes`).
public struct ServerLimits: Sendable {
    public var maxConnections: Int
    public var maxConnectionsPerUid: Int
    /// The last places under `maxConnections` that only admins may take, so that a user
    /// holding many uids (a subordinate uid range) cannot shut root and the admin group
    /// out: 16, or a quarter of `maxConnections` when that is under 64.
    public var adminReservedConnections: Int
    /// `server.max_message_bytes`, the Varlink door's largest message: a connection's
    /// worth of locked input memory (`lockedInputShares`).
    public var maxMessageBytes: Int
    public var idleTimeoutSeconds: Int
    /// After this long with no connection and no work, `run` returns (`.idle`); 0 never.
    public var exitOnIdleSeconds: Int
    /// Empty: every local user may connect.
    public var allowedGroups: Set<UInt32>
    public var adminGroup: UInt32?
    /// How long a graceful stop waits for messages in flight.
    public var shutdownGraceSeconds: Int

    /// Connections a uid may hold and still take the places kept for newcomers.
    public static let newcomerConnections = 4

    public init(
        maxConnections: Int, maxConnectionsPerUid: Int, maxMessageBytes: Int = 65536, idleTimeoutSeconds: Int,
        exitOnIdleSeconds: Int = 0, allowedGroups: Set<UInt32>, adminGroup: UInt32?, shutdownGraceSeconds: Int = 15
    ) {
        self.maxConnections = maxConnections
        self.maxConnectionsPerUid = maxConnectionsPerUid
        self.adminReservedConnections = Self.adminReserve(maxConnections: maxConnections)
        self.maxMessageBytes = maxMessageBytes
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

    /// How the connections are shared between uids (`UidShares`): up to
    /// `maxConnectionsPerUid` each; the last `adminReservedConnections` for admins; the
    /// quarter below them for uids holding fewer than `newcomerConnections`, so that
    /// the uids of one person (4 × 1024 fill 4096) never shut another uid out.
    public var connectionShares: UidShares.Limits {
        UidShares.Limits(
            capacity: maxConnections, perUid: maxConnectionsPerUid, adminReserve: adminReservedConnections,
            newcomerReserve: maxConnections / 4, newcomerShare: Self.newcomerConnections
        )
    }

    /// How the locked memory of the input buffers beyond their first page is shared:
    /// as the connections are, each connection's worth one `maxMessageBytes`. So every
    /// socket's buffers together lock no more than `maxConnections` full Varlink
    /// messages (what `LimitMEMLOCK` is sized for), however large a door's own frames
    /// (the agent's 256 KiB), and a uid no more than its connections' worth.
    public var lockedInputShares: UidShares.Limits {
        connectionShares.scaled(by: maxMessageBytes)
    }
}
