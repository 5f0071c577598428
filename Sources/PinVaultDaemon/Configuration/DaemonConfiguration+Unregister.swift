import PinVaultConfiguration

extension DaemonConfiguration {
    /// `[unregister]`: two-phase deletion.
    public struct Unregister: Sendable, Equatable {
        /// `expiry_seconds`: how long a begun unregistration waits for its commit
        /// before the credential is active again.
        public var expirySeconds: Int64 = 300

        /// The defaults.
        public init() {}

        /// Keys of `[unregister]`.
        static let keys = ["expiry_seconds"]

        /// Reads `[unregister]` over the defaults.
        init(_ section: ConfigurationSection) throws(ConfigurationError) {
            try section.refuseUnknownKeys(Self.keys)
            self.init()
            if let value = try section.integer("expiry_seconds", in: 1...86400) { expirySeconds = value }
        }
    }
}
