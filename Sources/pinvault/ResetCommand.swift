import ArgumentParser
import PinVaultClient

/// `pinvault reset [--yes]`
struct ResetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Admins only: delete every credential of every user on this machine.",
        discussion: "On a terminal it first asks you to type RESET; --yes skips that, and is required without a terminal."
    )

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Do not ask for confirmation.")
    var yes = false

    func run() async throws {
        try await global.run { console in
            try global.checkDaemon()
            try Confirmation.require(
                typing: "RESET", warning: "This deletes EVERY credential of EVERY user of pinvaultd.", yes: yes
            )
            let client = try global.connect()
            defer { client.close() }
            let deleted = try await client.resetEverything()
            console.show(.object([("deletedCount", .int(deleted))])) {
                console.say("Deleted \(deleted) credential\(deleted == 1 ? "" : "s").")
            }
            return .success
        }
    }
}
