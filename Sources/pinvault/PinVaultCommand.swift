import ArgumentParser
import Glibc
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

