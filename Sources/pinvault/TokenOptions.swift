import ArgumentParser

/// Where the unregistration token comes from: the terminal without echo by default,
/// or one line. It is a secret, so there is no option that takes it on argv.
struct TokenOptions: ParsableArguments {
    @Flag(help: "Read the token from standard input (one line) instead of the terminal.")
    var tokenStdin = false

    @Option(help: ArgumentHelp("Read the token from the inherited file descriptor N (one line).", valueName: "n"))
    var tokenFd: Int32?

    func validate() throws {
        try SecretInput.validate(stdin: tokenStdin, fd: tokenFd, stdinOption: "--token-stdin", fdOption: "--token-fd")
    }

    /// The chosen source; without a terminal and without an option, a usage error.
    func input() throws(CommandFailure) -> SecretInput {
        try SecretInput.choose(stdin: tokenStdin, fd: tokenFd, what: "token", options: "--token-stdin or --token-fd N")
    }
}
