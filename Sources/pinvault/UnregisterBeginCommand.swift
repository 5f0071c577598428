import ArgumentParser
import PinVaultClient

/// `pinvault unregister begin USER [--key-id ID] [--no-pin]`
struct UnregisterBeginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "begin",
        abstract: "Check the PIN and start unregistering a credential; prints the token.",
        discussion: """
            The token is printed once, on stdout (the `token` field with --json). It is a \
            secret: whoever holds it can delete or revive the credential while it is pending. \
            A wrong PIN counts towards the lockout.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var credential: CredentialOptions

    @Flag(name: .customLong("no-pin"), help: "Admins only: begin without the credential's PIN.")
    var noPin = false

    @OptionGroup var pins: PinOptions

    func run() async throws {
        try await global.run { console in
            var pin: PIN?
            let input = noPin ? nil : try pins.input()
            let keyId = try await CredentialChoice.choose(credential, global: global, input: input, purposes: nil)
            if let input {
                pin = try input.readPIN(prompt: "PIN for \(credential.user): ")
            }
            let client = try global.connect()
            defer { client.close() }
            let pending = try await client.beginUnregister(user: credential.user, keyId: keyId, pin: pin)
            defer { pending.token.wipe() }
            console.show(pending.json) {
                console.say("Unregistering \(pending.keyId) until \(WireText.time(pending.expiresAt)).")
                console.say("Finish with `pinvault unregister commit --key-id \(pending.keyId)` (or `abort`) and this token:")
                pending.token.withUnsafeBytes { StandardStream.output.write($0) }
                StandardStream.output.write("\n")
            }
            console.noteFailedAttemptsCleared(pending.failedAttemptsCleared)
            return .success
        }
    }
}
