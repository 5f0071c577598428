import PinVaultConfiguration

extension DaemonConfiguration {
    /// `[credentials]`: how many credentials one account and one uid may hold, so that
    /// no local user can fill the disk.
    public struct Credentials: Sendable, Equatable {
        /// `max_per_user`: credentials of one account name (per owner uid).
        public var maxPerUser = 8
        /// `max_per_uid`: credentials of one owner uid, all accounts together.
        public var maxPerUid = 64
        /// `max_total`: credentials of every uid together. Per-uid limits do not bound
        /// a user holding many uids (a subordinate uid range has 65,536); this does.
        public var maxTotal = 100_000

        /// The defaults.
        public init() {}

        /// Keys of `[credentials]`.
        static let keys = ["max_per_user", "max_per_uid", "max_total"]

        /// Reads `[credentials]` over the defaults.
        init(_ section: ConfigurationSection) throws(ConfigurationError) {
            try section.refuseUnknownKeys(Self.keys)
            self.init()
            if let value = try section.integer("max_per_user", in: 1...1000) { maxPerUser = Int(value) }
            if let value = try section.integer("max_per_uid", in: 1...100_000) { maxPerUid = Int(value) }
            if let value = try section.integer("max_total", in: 1...100_000_000) { maxTotal = Int(value) }
            guard maxPerUser <= maxPerUid else {
                throw section.error(
                    section.either("max_per_user", "max_per_uid"),
                    "credentials.max_per_user (\(maxPerUser)) must not exceed credentials.max_per_uid (\(maxPerUid))"
                )
            }

        }
    }
}
