/// The `io.pinvault.Vault` interface. Its definition lives once, in the repository's
/// `io.pinvault.Vault.varlink`; the build generates `description`, `VaultMethod` and
/// `VaultErrorName` from that file (Plugins/GenerateVarlinkInterface).
public enum VaultInterface {
    /// The interface name.
    public static let name = "io.pinvault.Vault"
}
