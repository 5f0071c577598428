import PinVaultConfiguration

extension DaemonConfiguration {
    /// `[store]`: where the vault lives.
    public struct Store: Sendable, Equatable {
        /// `state_directory`: holds `vault.sqlite` and, without systemd credentials,
        /// the pepper. nil when the file does not say: the daemon then takes
        /// `$STATE_DIRECTORY` (systemd's `StateDirectory=`), else `fallbackStateDirectory`.
        /// `--state-directory` beats them all.
        public var stateDirectory: String?

        /// Where the vault lives when neither flag, file nor systemd says.
        public static let fallbackStateDirectory = "/var/lib/pinvault"

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
