/// The running daemon's counters since it started (admins only).
public struct Stats: Equatable, Sendable {
    /// Method calls answered.
    public var requests: Int
    /// Successful authentications.
    public var authenticationsSucceeded: Int
    /// Authentications refused for a wrong PIN.
    public var authenticationsFailed: Int
    /// Credentials throttled, blocked or wiped for wrong PINs.
    public var lockouts: Int
    /// KDF jobs waiting for a worker.
    public var kdfQueueDepth: Int
    /// KDF jobs running now.
    public var kdfRunning: Int
    /// Argon2id evaluations run since start (PIN checks and seals): what an online
    /// guesser really costs the daemon. 0 from a daemon too old to count them.
    public var kdfEvaluations: Int
    /// Client connections open now.
    public var activeConnections: Int
    /// Seconds since the daemon started.
    public var uptimeSeconds: Int

    /// Each field as given.
    public init(
        requests: Int, authenticationsSucceeded: Int, authenticationsFailed: Int, lockouts: Int,
        kdfQueueDepth: Int, kdfRunning: Int, activeConnections: Int, uptimeSeconds: Int,
        kdfEvaluations: Int = 0
    ) {
        self.requests = requests
        self.authenticationsSucceeded = authenticationsSucceeded
        self.authenticationsFailed = authenticationsFailed
        self.lockouts = lockouts
        self.kdfQueueDepth = kdfQueueDepth
        self.kdfRunning = kdfRunning
        self.kdfEvaluations = kdfEvaluations
        self.activeConnections = activeConnections
        self.uptimeSeconds = uptimeSeconds
    }
}
