import ArgumentParser
import Glibc
import PinVaultSystem
import PinVaultTransport

/// `pinvault`: the command line of PinVault.
struct PinVaultCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pinvault",
        abstract: "Register, use and manage the PIN-protected signing keys that pinvaultd keeps.",
        discussion: """
            Every command talks to pinvaultd over its Varlink socket (--socket, else \
            $PINVAULT_SOCKET, else the system socket) and acts on the credentials of the \
            calling user; admins (root or a member of the daemon's admin group) may pass \
            --owner-uid where it is offered. --socket and --json may come before the \
            command's name (pinvault --socket PATH list) or after it (pinvault list \
            --socket PATH).

            PINs and unregistration tokens are never taken from the command line: they are \
            typed at the terminal without echo, or read one line each from standard input \
            (--pin-stdin, --token-stdin) or an inherited file descriptor (--pin-fd N, \
            --token-fd N).

            --json prints the daemon's reply on stdout with the interface's field names and \
            encodings; a failure prints {"error": NAME, "parameters": {...}} on stdout instead.

            Exit status:
            \(ExitStatus.table)
            """,
        version: PinVaultVersion.current,
        subcommands: [
            PolicyCommand.self, CheckPinCommand.self, RegisterCommand.self, ListCommand.self,
            AuthCommand.self, ChangePinCommand.self, UnregisterCommand.self, WipeCommand.self,
            UnblockCommand.self, ResetCommand.self, StatsCommand.self,
            UnlockCommand.self, LockCommand.self, SignCommand.self, SSHKeyCommand.self, SSHCertCommand.self, PasskeyCommand.self, AgentCommand.self,
        ]
    )

    /// The options every command takes, here so that they may also come before the
    /// command's name (`GlobalOptions`).
    @OptionGroup var global: GlobalOptions
}

extension PinVaultCommand {
    /// The command a command line runs, as the user typed it (`auth`, `ssh-cert add`):
    /// the first word that names a command, and the words after it that name its
    /// subcommands. Messages name it ("pinvault auth cannot use it"). Set by `Entry`.
    nonisolated(unsafe) static var invoked = ""

    /// The words of `arguments` that name a command and its subcommands; `unknown` is
    /// the first word after `help` that names none.
    static func commandPath(in arguments: [String]) -> (path: [String], unknown: String?) {
        var words = arguments.filter { !$0.hasPrefix("-") }[...]
        // Skip an option's value before the command (pinvault --socket PATH list).
        while let first = words.first, first != "help", !configuration.subcommands.contains(where: { $0._commandName == first }) {
            words = words.dropFirst()
        }
        let help = words.first == "help"
        if help { words = words.dropFirst() }
        var commands = configuration.subcommands
        var path: [String] = []
        for word in words {
            guard let command = commands.first(where: { $0._commandName == word }) else {
                return (path, help ? word : nil)
            }
            path.append(word)
            commands = command.configuration.subcommands
        }
        return (path, nil)
    }

    /// `pinvault help TOPIC…` names commands that exist: swift-argument-parser prints the
    /// whole help and exits 0 for a name it does not know, which hides a typo from a
    /// script. Returns the usage error to report, or nil.
    static func unknownHelpTopic(in arguments: [String]) -> String? {
        let (path, unknown) = commandPath(in: arguments)
        guard let unknown else { return nil }
        let known = (["pinvault"] + path).joined(separator: " ")
        return "no command \(TerminalText.escaped(unknown)) in \(known) (\(known) --help lists them)"
    }
}
