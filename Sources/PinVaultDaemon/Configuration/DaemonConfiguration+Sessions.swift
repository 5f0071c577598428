import PinVaultConfiguration

extension DaemonConfiguration {
    /// `[sessions]`: unlock sessions (`Unlock`, and the ssh-agent socket's keys).
    public struct Sessions: Sendable, Equatable {
        /// `max_ttl_seconds`: the longest an Unlock keeps a key open; a longer
        /// `ttlSeconds` is cut to it. 0 turns Unlock off (PermissionDenied).
        public var maxTtlSeconds: Int64 = 3600
        /// `max_per_uid`: sessions one uid may hold at once.
        public var maxPerUid = 16

        /// The defaults.
        public init() {}

        /// Keys of `[sessions]`.
        static let keys = ["max_ttl_seconds", "max_per_uid"]

        /// Reads `[sessions]` over the defaults.
        init(_ section: ConfigurationSection) throws(ConfigurationError) {
            try section.refuseUnknownKeys(Self.keys)
            self.init()
            if let value = try section.integer("max_ttl_seconds", in: 0...2_592_000) { maxTtlSeconds = value }
            if let value = try section.integer("max_per_uid", in: 1...1024) { maxPerUid = Int(value) }
        }
    }

    /// `[ssh_agent]`: the OpenSSH agent socket.
    public struct SSHAgent: Sendable, Equatable {
        /// `socket_path`: where the agent socket is bound without socket activation;
        /// "" serves none. Its mode is `server.socket_mode`, its peers are admitted as
        /// the Varlink socket's are.
        public var socketPath = "/run/pinvault/ssh-agent.sock"

        /// The defaults.
        public init() {}

        /// Keys of `[ssh_agent]`.
        static let keys = ["socket_path"]

        /// Reads `[ssh_agent]` over the defaults.
        init(_ section: ConfigurationSection) throws(ConfigurationError) {
            try section.refuseUnknownKeys(Self.keys)
            self.init()
            if try section.string("socket_path") == "" {
                socketPath = ""
            } else if let path = try section.absolutePath("socket_path", maxBytes: Server.maximumSocketPathBytes) {
                socketPath = path
            }
        }
    }
}
