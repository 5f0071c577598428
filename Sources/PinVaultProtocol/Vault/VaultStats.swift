/// The wire form of `io.pinvault.Vault.Stats`: the daemon's counters since start.
public struct VaultStats: Equatable, Sendable {
    /// Method calls answered.
    public var requests: Int64
    /// Successful authentications.
    public var authenticationsSucceeded: Int64
    /// Authentications refused for a wrong PIN.
    public var authenticationsFailed: Int64
    /// Credentials throttled, blocked or wiped for wrong PINs.
    public var lockouts: Int64
    /// KDF jobs waiting for a worker.
    public var kdfQueueDepth: Int64
    /// KDF jobs running.
    public var kdfRunning: Int64
    /// Argon2id evaluations run since start (PIN checks and seals); 0 when an older
    /// daemon does not send it.
    public var kdfEvaluations: Int64
    /// Open client connections.
    public var activeConnections: Int64
    /// Seconds since the daemon started.
    public var uptimeSeconds: Int64

    /// Each field as given.
    public init(
        requests: Int64, authenticationsSucceeded: Int64, authenticationsFailed: Int64, lockouts: Int64,
        kdfQueueDepth: Int64, kdfRunning: Int64, activeConnections: Int64, uptimeSeconds: Int64,
        kdfEvaluations: Int64 = 0
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

    /// Decodes a `Stats` object.
    public init(from object: ParameterDecoder) throws(ParameterError) {
        let count: ClosedRange<Int64> = 0...Int64.max
        requests = try object.int("requests", required: true, range: count) ?? 0
        authenticationsSucceeded = try object.int("authenticationsSucceeded", required: true, range: count) ?? 0
        authenticationsFailed = try object.int("authenticationsFailed", required: true, range: count) ?? 0
        lockouts = try object.int("lockouts", required: true, range: count) ?? 0
        kdfQueueDepth = try object.int("kdfQueueDepth", required: true, range: count) ?? 0
        kdfRunning = try object.int("kdfRunning", required: true, range: count) ?? 0
        kdfEvaluations = try object.int("kdfEvaluations", required: false, range: count) ?? 0
        activeConnections = try object.int("activeConnections", required: true, range: count) ?? 0
        uptimeSeconds = try object.int("uptimeSeconds", required: true, range: count) ?? 0
    }

    /// Writes the object's fields.
    public func writeFields(_ object: inout JSONObjectWriter) {
        object.field("requests", requests)
        object.field("authenticationsSucceeded", authenticationsSucceeded)
        object.field("authenticationsFailed", authenticationsFailed)
        object.field("lockouts", lockouts)
        object.field("kdfQueueDepth", kdfQueueDepth)
        object.field("kdfRunning", kdfRunning)
        object.field("kdfEvaluations", kdfEvaluations)
        object.field("activeConnections", activeConnections)
        object.field("uptimeSeconds", uptimeSeconds)
    }
}
