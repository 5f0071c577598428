import ArgumentParser
import PinVaultClient

/// `pinvault lock [USER [--key-id ID] | --all]`
struct LockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock",
        abstract: "End unlock sessions: a user's credentials, one credential, or all of yours.",
        discussion: """
            Ends what `pinvault unlock` opened: the sessions of USER's credentials (or the \
            one --key-id names), or with --all every session of your uid. The ssh-agent \
            socket offers those keys no more (`ssh-add -D` does the same for all). Prints the \
            key ids that were unlocked; none is not an error.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The account whose credentials to lock.", valueName: "user"))
    var user: String?

    @Option(help: ArgumentHelp("Only this credential (32 hex digits).", valueName: "key-id"))
    var keyId: String?

    @Flag(help: "Lock every credential of your uid.")
    var all = false

    func validate() throws {
        guard all != (user != nil || keyId != nil) else {
            throw ValidationError("give a USER (or --key-id), or --all")
        }
    }

    func run() async throws {
        try await global.run { console in
            let client = try global.connect()
            defer { client.close() }
            var locked: [String] = []
            if all {
                locked = try await client.lock()
            } else if let keyId, user == nil {
                locked = try await client.lock(keyId: keyId)
            } else if let user {
                let credentials = try await client.list(user: user)
                let chosen = credentials.filter { keyId == nil || $0.keyId == keyId }
                if chosen.isEmpty { throw CommandFailure(.noSuchCredential) }
                for credential in chosen where credential.unlockedUntil != nil {
                    locked += try await client.lock(keyId: credential.keyId)
                }
            }
            console.show(.object([("lockedKeyIds", .array(locked.map { .string($0) }))])) {
                if locked.isEmpty {
                    console.say("Nothing was unlocked.")
                } else {
                    for keyId in locked { console.say("Locked \(keyId).") }
                }
            }
            return .success
        }
    }
}
