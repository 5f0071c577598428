import PinVaultConfiguration

extension DaemonConfiguration {
    /// `[access]`: who may connect and who is an admin (SECURITY.md, "Another local user").
    public struct Access: Sendable, Equatable {
        /// `admin_group`: members are admins besides root; nil (absent or "") means
        /// root alone.
        public var adminGroup: String?
        /// `allowed_groups`: only members (and root) may connect; empty lets every
        /// local user connect.
        public var allowedGroups: [String] = []

        /// The defaults.
        public init() {}

        /// Keys of `[access]`.
        static let keys = ["admin_group", "allowed_groups"]

        /// Reads `[access]` over the defaults.
        init(_ section: ConfigurationSection) throws(ConfigurationError) {
            try section.refuseUnknownKeys(Self.keys)
            self.init()
            if let name = try section.string("admin_group"), !name.isEmpty {
                try Self.checkGroupName(name, section: section, key: "admin_group")
                adminGroup = name
            }
            if let names = try section.strings("allowed_groups") {
                for name in names {
                    try Self.checkGroupName(name, section: section, key: "allowed_groups")
                }
                allowedGroups = names
            }
        }

        /// A group name as `getgrnam` could know it: 1–256 bytes, no blank, control
        /// character, ':' or '/'.
        private static func checkGroupName(
            _ name: String, section: ConfigurationSection, key: String
        ) throws(ConfigurationError) {
            let isValid = !name.isEmpty && name.utf8.count <= 256
                && !name.unicodeScalars.contains {
                    $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F || $0 == ":" || $0 == "/"
                }
            guard isValid else { throw section.error(key, "\"\(name)\" is not a valid group name") }
        }
    }
}
