import PinVaultConfiguration
import Logging
import PinVaultCore
import PinVaultCrypto

/// Everything `pinvaultd` reads from its TOML file (config/pinvaultd.toml lists every key), with the
/// documented defaults. `config/pinvaultd.toml` lists every key.
///
/// Command-line flags and `$STATE_DIRECTORY` take precedence over the file; `main`
/// applies them after loading, not this type.
public struct DaemonConfiguration: Sendable, Equatable {
    /// `[server]`: the socket and connection limits.
    public var server = Server()
    /// `[access]`: who may connect and who is an admin.
    public var access = Access()
    /// `[store]`: where the vault lives.
    public var store = Store()
    /// `[kdf]`: Argon2id costs and the bounded KDF pool.
    public var kdf = KDF()
    /// `[policy]`: the rules for new PINs, deny list loaded.
    public var policy = PinPolicy()
    /// `[lockout]`: throttling and the end of failed attempts.
    public var lockout = LockoutPolicy()
    /// `[unregister]`: two-phase deletion.
    public var unregister = Unregister()
    /// `[credentials]`: how many credentials one account and one uid may hold.
    public var credentials = Credentials()
    /// `[sessions]`: unlock sessions.
    public var sessions = Sessions()
    /// `[ssh_agent]`: the OpenSSH agent socket.
    public var sshAgent = SSHAgent()
    /// `[webauthn]`: the passkey authenticator's CTAPHID socket.
    public var webAuthn = WebAuthn()
    /// Top-level `log_level`; nil when absent (the daemon's own default then applies).
    public var logLevel: Logger.Level?

    /// The defaults.
    public init() {}

    /// The configuration with every key at its default.
    public static let defaults = DaemonConfiguration()

    /// Where the daemon looks for its configuration without `--config`.
    public static let defaultPath = "/etc/pinvault/pinvaultd.toml"
}
