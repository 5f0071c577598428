import ArgumentParser
import PinVaultClient

/// `pinvault check-pin`
struct CheckPinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-pin",
        abstract: "Check a candidate PIN against the policy, storing and counting nothing.",
        discussion: "Exits 0 when the PIN meets the policy and 5 when it breaks it, listing every rule it breaks."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var pins: PinOptions

    func run() async throws {
        try await global.run { console in
            let input = try pins.input()
            if input.isTerminal { try global.checkDaemon() }
            let pin = try input.readPIN(prompt: "PIN to check: ", allowingEmpty: true)
            let client = try global.connect()
            defer { client.close() }
            let check = try await client.checkPin(pin)
            console.show(check.json) {
                if check.valid {
                    console.say("The PIN meets the policy.")
                } else {
                    console.say("The PIN breaks the policy:")
                    for violation in check.violations { console.say("  - \(violation)") }
                }
            }
            return check.valid ? .success : .policyViolation
        }
    }
}
