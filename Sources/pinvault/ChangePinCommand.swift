import ArgumentParser
import PinVaultClient

/// `pinvault change-pin USER [--key-id ID]`
struct ChangePinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "change-pin",
        abstract: "Replace a credential's PIN; the key pair stays the same.",
        discussion: """
            Asks for the current PIN, then the new one twice. From --pin-stdin or --pin-fd, \
            reads two lines: the current PIN, then the new one. The new PIN must meet the \
            policy and differ from the current one; a wrong current PIN counts towards the lockout.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var credential: CredentialOptions
    @OptionGroup var pins: PinOptions

    func run() async throws {
        try await global.run { console in
            let input = try pins.input()
            let keyId = try await CredentialChoice.choose(credential, global: global, input: input, purposes: nil)
            let currentPin = try input.readPIN(prompt: "Current PIN for \(credential.user): ")
            let newPin: PIN
            do {
                newPin = try await input.readNewPIN(prompt: "New PIN for \(credential.user): ", policy: global.requirePolicy)
            } catch {
                currentPin.wipe()
                throw error
            }
            let client = try global.connect()
            defer { client.close() }
            let changed = try await client.changePin(
                user: credential.user, keyId: keyId, currentPin: currentPin, newPin: newPin
            )
            console.show(.object([("credential", changed.json)])) {
                console.say("Changed the PIN of \(changed.keyId) (\(changed.user)).")
            }
            return .success
        }
    }
}
