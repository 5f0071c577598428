import ArgumentParser
import PinVaultClient

/// `pinvault wipe USER [--key-id ID] [--owner-uid UID] [--no-pin] [--yes]`
struct WipeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wipe",
        abstract: "Delete every credential of a user (the whole account) at once.",
        discussion: """
            Checks the PIN of the user's only credential (or the one --key-id names), then \
            deletes all of that user's credentials in one step. On a terminal it first asks \
            you to type the user name; --yes skips that, and is required without a terminal.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var credential: CredentialOptions

    @Option(help: ArgumentHelp("Admins only: wipe this uid's account instead of your own.", valueName: "uid"))
    var ownerUid: UInt32?

    @Flag(name: .customLong("no-pin"), help: "Admins only: wipe without a PIN.")
    var noPin = false

    @Flag(help: "Do not ask for confirmation.")
    var yes = false

    @OptionGroup var pins: PinOptions

    func run() async throws {
        try await global.run { console in
            try global.checkDaemon()
            try Confirmation.require(
                typing: credential.user,
                warning: "This deletes every credential of \(credential.user)\(ownerUid.map { " of uid \($0)" } ?? "").",
                yes: yes
            )
            var pin: PIN?
            var keyId = credential.keyId
            if !noPin {
                // Whose PIN: the one credential chosen now, before the PIN is typed.
                let input = try pins.input()
                keyId = try await CredentialChoice.choose(credential, global: global, input: input, purposes: nil, ownerUid: ownerUid)
                pin = try input.readPIN(prompt: "PIN for \(credential.user): ")
            }
            let client = try global.connect()
            defer { client.close() }
            let result = try await client.wipe(user: credential.user, keyId: keyId, pin: pin, ownerUid: ownerUid)
            console.show(result.json) {
                let count = result.deletedKeyIds.count
                console.say("Deleted \(count) credential\(count == 1 ? "" : "s") of \(result.user)\(count == 0 ? "." : ":")")
                for keyId in result.deletedKeyIds { console.say("  " + keyId) }
            }
            console.noteFailedAttemptsCleared(result.failedAttemptsCleared)
            return .success
        }
    }
}
