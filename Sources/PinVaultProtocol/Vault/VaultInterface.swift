/// The `io.pinvault.Vault` interface. Its definition lives once, in the repository's
/// `io.pinvault.Vault.varlink`; the build generates `description`, `VaultMethod`,
/// `VaultErrorName` and a model per `type` (`VaultCredential`, `VaultPasskey`,
/// `VaultPinPolicy`, `VaultStats`) from that file (Plugins/GenerateVarlinkInterface).
public enum VaultInterface {
    /// The interface name.
    public static let name = "io.pinvault.Vault"
}
