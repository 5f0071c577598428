import PinVaultConfiguration

extension DaemonConfiguration {
    /// `[server]`: the socket and connection limits.
    public struct Server: Sendable, Equatable {
        /// `socket_path`: the Unix socket bound without socket activation.
        public var socketPath = "/run/pinvault/io.pinvault.Vault"
        /// `socket_mode`: the socket file's permission bits, written in TOML as an octal
        /// string ("0666"). Access is decided per peer, so the default lets all connect.
        public var socketMode: UInt32 = 0o666
        /// `max_message_bytes`: the largest Varlink frame, NUL included; at most
        /// 1 MiB, since parsing a frame costs about 48 bytes of nodes per byte.
        public var maxMessageBytes = 65536
        /// `max_connections`: open connections at once (the last 16 only for admins).
        /// An idle connection costs 8 KiB of locked memory and about 14 KiB resident, so
        /// the default follows systemd's own Varlink servers.
        public var maxConnections = 4096
        /// `max_connections_per_uid`: open connections of one peer uid at once.
        public var maxConnectionsPerUid = 1024
        /// `idle_timeout_seconds`: a connection with no request for this long is closed.
        public var idleTimeoutSeconds = 60
        /// `exit_on_idle_seconds`: under socket activation, exit cleanly after this long
        /// with no connection and no work (systemd starts the daemon again on the next
        /// connection); 0 never. Refused at start without socket activation.
        public var exitOnIdleSeconds = 0

        /// The defaults.
        public init() {}

        /// `sun_path` holds 108 bytes, NUL included.
        static let maximumSocketPathBytes = 107

        /// Keys of `[server]`.
        static let keys = [
            "socket_path", "socket_mode", "max_message_bytes", "max_connections",
            "max_connections_per_uid", "idle_timeout_seconds", "exit_on_idle_seconds",
        ]

        /// Reads `[server]` over the defaults.
        init(_ section: ConfigurationSection) throws(ConfigurationError) {
            try section.refuseUnknownKeys(Self.keys)
            self.init()
            if let path = try section.absolutePath("socket_path", maxBytes: Self.maximumSocketPathBytes) {
                socketPath = path
            }
            if let mode = try Self.socketMode(section) { socketMode = mode }
            if let value = try section.integer("max_message_bytes", in: 1024...(1 << 20)) {
                maxMessageBytes = Int(value)
            }
            if let value = try section.integer("max_connections", in: 1...65536) { maxConnections = Int(value) }
            if let value = try section.integer("max_connections_per_uid", in: 1...65536) {
                maxConnectionsPerUid = Int(value)
            }
            guard maxConnectionsPerUid <= maxConnections else {
                throw section.error(
                    section.either("max_connections_per_uid", "max_connections"),
                    "server.max_connections_per_uid (\(maxConnectionsPerUid)) must not exceed server.max_connections (\(maxConnections))"
                )
            }
            if let value = try section.integer("idle_timeout_seconds", in: 1...86400) {
                idleTimeoutSeconds = Int(value)
            }
            if let value = try section.integer("exit_on_idle_seconds", in: 0...86400) {
                exitOnIdleSeconds = Int(value)
            }
        }

        /// `socket_mode`: an octal string of three digits, optionally after a 0.
        private static func socketMode(_ section: ConfigurationSection) throws(ConfigurationError) -> UInt32? {
            let key = "socket_mode"
            if case .integer = section.table[key]?.value {
                throw section.error(key, "expected an octal string such as \"0666\", got an integer")
            }
            guard let text = try section.string(key) else { return nil }
            // "0666" or "666": an optional 0, then three octal digits.
            let digits = text.utf8.count == 4 && text.hasPrefix("0") ? text.dropFirst() : Substring(text)
            guard digits.utf8.count == 3, digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "7")).contains($0) }),
                  let mode = UInt32(digits, radix: 8)
            else {
                throw section.error(key, "must be an octal mode from \"0000\" to \"0777\", got \"\(text)\"")
            }
            return mode
        }
    }
}
