/// PinVault's version: what `pinvaultd --version`, `pinvault --version` and GetInfo
/// report. debian/changelog's upstream part must say the same (debian/rules checks).
public enum PinVaultVersion {
    public static let current = "0.1.0"
}
