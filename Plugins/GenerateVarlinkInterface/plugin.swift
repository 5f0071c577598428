import Foundation
import PackagePlugin

/// Generates the Swift of the `io.pinvault.Vault` interface from the repository's one
/// copy of it, `io.pinvault.Vault.varlink`, at every build: the text that
/// `GetInterfaceDescription` serves, and the method and error names with their
/// parameters. Nothing generated is checked in, so there is no second copy to drift.
@main
struct GenerateVarlinkInterface: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let interface = context.package.directoryURL.appending(path: "io.pinvault.Vault.varlink")
        let output = context.pluginWorkDirectoryURL.appending(path: "VaultInterface+Generated.swift")
        return [
            .buildCommand(
                displayName: "Generating VaultInterface+Generated.swift from io.pinvault.Vault.varlink",
                executable: try context.tool(named: "varlink-interface-generator").url,
                arguments: [interface.path(percentEncoded: false), output.path(percentEncoded: false)],
                inputFiles: [interface],
                outputFiles: [output]
            )
        ]
    }
}
