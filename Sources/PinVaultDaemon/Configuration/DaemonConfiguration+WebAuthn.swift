import PinVaultConfiguration

extension DaemonConfiguration {
    /// `[webauthn]`: the passkey authenticator's doors.
    public struct WebAuthn: Sendable, Equatable {
        /// `socket`: the CTAPHID socket (64-byte reports each way) bound without socket
        /// activation; "" serves none. Its mode is `server.socket_mode`, its peers are
        /// admitted as the Varlink socket's are.
        public var socketPath = "/run/pinvault/ctaphid.sock"

        /// The defaults.
        public init() {}

        /// Keys of `[webauthn]`.
        static let keys = ["socket"]

        /// Reads `[webauthn]` over the defaults.
        init(_ section: ConfigurationSection) throws(ConfigurationError) {
            try section.refuseUnknownKeys(Self.keys)
            self.init()
            if try section.string("socket") == "" {
                socketPath = ""
            } else if let path = try section.absolutePath("socket", maxBytes: Server.maximumSocketPathBytes) {
                socketPath = path
            }
        }
    }
}
