/// The typed confirmation that `wipe` and `reset` ask for on a terminal, as
/// `gh repo delete` asks for the repository's name.
enum Confirmation {
    /// Returns when `yes`, or when the person at the terminal types `expected` after
    /// reading `warning`. Without a terminal and without `yes`, a usage error.
    static func require(typing expected: String, warning: String, yes: Bool) throws(CommandFailure) {
        if yes { return }
        guard let terminal = Terminal.open() else {
            throw .usage("no terminal to confirm on: pass --yes to confirm")
        }
        let answer = terminal.readLine(prompt: warning + "\nType \(expected) to confirm: ")
        guard answer == expected else { throw .confirmationDeclined }
    }
}
