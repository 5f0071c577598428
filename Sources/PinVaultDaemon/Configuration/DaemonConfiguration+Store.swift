extension DaemonConfiguration {
    /// `[store]`: where the vault lives.
    public struct Store: Sendable, Equatable {
        /// `state_directory`: holds `vault.sqlite` and, without systemd credentials,
        /// the pepper. `--state-directory` and `$STATE_DIRECTORY` take precedence.
        public var stateDirectory = "/var/lib/pinvault"

        /// The defaults.
        public init() {}

        /// Keys of `[store]`.
        static let keys = ["state_directory"]

        /// Reads `[store]` over the defaults.
        init(_ section: ConfigurationSection) throws(ConfigurationError) {
            try section.refuseUnknownKeys(Self.keys)
            self.init()
            if let path = try section.absolutePath("state_directory") { stateDirectory = path }
        }
    }
}
