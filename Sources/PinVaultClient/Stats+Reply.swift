import PinVaultProtocol

extension Stats {
    /// The public form of a decoded `Stats` object.
    init(_ wire: VaultStats) {
        self.init(
            requests: Int(wire.requests),
            authenticationsSucceeded: Int(wire.authenticationsSucceeded),
            authenticationsFailed: Int(wire.authenticationsFailed),
            lockouts: Int(wire.lockouts),
            kdfQueueDepth: Int(wire.kdfQueueDepth),
            kdfRunning: Int(wire.kdfRunning),
            activeConnections: Int(wire.activeConnections),
            uptimeSeconds: Int(wire.uptimeSeconds),
            kdfEvaluations: Int(wire.kdfEvaluations)
        )
    }
}
