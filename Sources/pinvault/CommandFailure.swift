/// Why a command failed, ready to report: the exit status, a one-line English message
/// for stderr, and the error as `--json` prints it (a Varlink error name and its
/// parameters). Failures of the command line itself are named `io.pinvault.cli.*`.
/// Never holds a secret.
struct CommandFailure: Error {
    /// The exit status.
    var status: ExitStatus
    /// What `pinvault: …` says on stderr.
    var message: String
    /// The error's name, e.g. `io.pinvault.Vault.WrongPin`.
    var name: String
    /// The error's parameters, e.g. `remainingAttempts`.
    var parameters: [(String, JSONValue)] = []

    /// The error document `--json` prints.
    var json: JSONValue {
        .object([("error", .string(name)), ("parameters", .object(parameters))])
    }

    /// The command line is wrong, or a secret cannot be read where it was asked for.
    static func usage(_ message: String) -> CommandFailure {
        CommandFailure(status: .usage, message: message, name: "io.pinvault.cli.UsageError", parameters: [("message", .string(message))])
    }

    /// The new PIN and its repetition differ.
    static let pinsDiffer = CommandFailure(
        status: .failure, message: "the two PINs differ; nothing was changed", name: "io.pinvault.cli.PinsDiffer"
    )

    /// The user did not type the confirmation asked for.
    static let confirmationDeclined = CommandFailure(
        status: .failure, message: "not confirmed; nothing was changed", name: "io.pinvault.cli.ConfirmationDeclined"
    )

    /// Reading the terminal or an input failed.
    static func input(_ message: String) -> CommandFailure {
        CommandFailure(status: .failure, message: message, name: "io.pinvault.cli.InputError", parameters: [("message", .string(message))])
    }
}
