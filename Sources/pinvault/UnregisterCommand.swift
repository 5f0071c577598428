import ArgumentParser

/// `pinvault unregister begin|commit|abort`
struct UnregisterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unregister",
        abstract: "Delete a credential in two steps: begin, then commit (or abort).",
        discussion: """
            `begin` checks the PIN and prints a one-time token; the credential is unusable \
            until the token commits the deletion, aborts it, or the unregistration lapses \
            (after 5 minutes by default), when it is active again.
            """,
        subcommands: [UnregisterBeginCommand.self, UnregisterCommitCommand.self, UnregisterAbortCommand.self]
    )
}
