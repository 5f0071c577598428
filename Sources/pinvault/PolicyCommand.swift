import ArgumentParser
import PinVaultClient

/// `pinvault policy`
struct PolicyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "policy",
        abstract: "Show the PIN policy and the lockout rules in force.",
        discussion: "What a new PIN must meet, and what wrong PINs lead to."
    )

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await global.run { console in
            let client = try global.connect()
            defer { client.close() }
            let policy = try await client.getPolicy()
            console.show(.object([("policy", policy.json)])) {
                StandardStream.output.write(Table(headers: nil, rows: policy.summary).text)
            }
            return .success
        }
    }
}

extension PinPolicy {
    /// The policy in words, one rule a row.
    var summary: [[String]] {
        let characters = digitsOnly ? "digits only" : "any characters"
        let final = onMaxAttempts == .block ? "blocked until an admin unblocks it" : "deleted"
        return [
            ["Length:", "\(minLength) to \(maxLength) characters, \(characters)"],
            ["Repeats:", "no character more than \(maxIdenticalDigits) times"],
            ["Sequences:", allowSequences ? "allowed" : "refused (such as 123456 or 987654)"],
            ["Deny list:", "\(denyListSize) common PINs refused"],
            ["Throttling:", "from \(throttleAfter) wrong PINs in a row, a growing wait"],
            ["Last attempt:", "after \(maxAttempts) wrong PINs in a row the credential is \(final)"],
        ]
    }
}
