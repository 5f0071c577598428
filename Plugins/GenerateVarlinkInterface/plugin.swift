import Foundation
import PackagePlugin

/// Generates the Swift of the `io.pinvault.Vault` interface from the repository's one
/// copy of it, `io.pinvault.Vault.varlink`, at every build: for PinVaultProtocol, the text
/// that `GetInterfaceDescription` serves, and the method and error names with their
/// parameters; for PinVaultCrypto, `KeyPurpose`, the values of `Credential.purpose`.
/// Nothing generated is checked in, so there is no second copy to drift.
@main
struct GenerateVarlinkInterface: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let interface = context.package.directoryURL.appending(path: "io.pinvault.Vault.varlink")
        let (file, mode): (String, [String]) =
            target.name == "PinVaultCrypto" ? ("KeyPurpose+Generated.swift", ["--purposes"]) : ("VaultInterface+Generated.swift", [])
        let output = context.pluginWorkDirectoryURL.appending(path: file)
        return [
            .buildCommand(
                displayName: "Generating \(file) from io.pinvault.Vault.varlink",
                executable: try context.tool(named: "varlink-interface-generator").url,
                arguments: mode + [interface.path(percentEncoded: false), output.path(percentEncoded: false)],
                inputFiles: [interface],
                outputFiles: [output]
            )
        ]
    }
}
