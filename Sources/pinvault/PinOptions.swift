import ArgumentParser
import Glibc

/// Where PINs come from: the terminal without echo by default, or one line per PIN.
/// There is deliberately no option that takes a PIN itself: argv is readable by every
/// user in /proc.
struct PinOptions: ParsableArguments {
    @Flag(help: "Read the PIN from standard input, one line per PIN (change-pin: current, then new), instead of the terminal.")
    var pinStdin = false

    @Option(help: ArgumentHelp("Read the PIN from the inherited file descriptor N, one line per PIN.", valueName: "n"))
    var pinFd: Int32?

    func validate() throws {
        try SecretInput.validate(stdin: pinStdin, fd: pinFd, stdinOption: "--pin-stdin", fdOption: "--pin-fd")
    }

    /// Whether the PINs come from standard input.
    var readsStandardInput: Bool { pinStdin || pinFd == STDIN_FILENO }

    /// The chosen source; without a terminal and without an option, a usage error.
    func input() throws(CommandFailure) -> SecretInput {
        try SecretInput.choose(stdin: pinStdin, fd: pinFd, what: "PIN", options: "--pin-stdin or --pin-fd N")
    }
}
