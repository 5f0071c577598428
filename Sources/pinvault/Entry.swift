import ArgumentParser
import Dispatch
import Glibc
import PinVaultTransport

/// The process's entry: a synchronous `main` that runs the command on the concurrency
/// runtime's threads and waits for it.
///
/// Not an `async` main: the runtime would hand the main thread to `dispatch_main`,
/// which parks it in `sigsuspend` with every signal unblocked, so a SIGTERM or SIGINT
/// that `pinvault agent` means to read from its event loop's signalfd would be
/// delivered there, at its default action, and kill the agent mid-request.
@main
enum Entry {
    static func main() {
        // A reader that went away makes a write fail with EPIPE, reported with status
        // 1, instead of killing pinvault silently (and, mid-command, after the daemon
        // acted).
        signal(SIGPIPE, SIG_IGN)
        // Parsed first, here: global options may stand before the command's name
        // (`pinvault --socket PATH agent`), so only the parser knows which command runs.
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let unknown = PinVaultCommand.unknownHelpTopic(in: arguments) {
            StandardStream.error.write("pinvault: \(unknown)\n")
            exit(ExitStatus.usage.rawValue)
        }
        PinVaultCommand.invoked = PinVaultCommand.commandPath(in: arguments).path.joined(separator: " ")
        let command: any ParsableCommand
        do {
            command = try PinVaultCommand.parseAsRoot()
        } catch {
            PinVaultCommand.exit(withError: error)
        }
        // The agent stops on SIGTERM/SIGINT through its event loop's signalfd: they are
        // blocked here, before any other thread starts, so that every thread inherits it.
        if command is AgentCommand {
            ShutdownSignals.blockInThisThread()
        }
        let finished = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var parsed = command
        Task.detached {
            // Exits itself on failure, with the command's status.
            do {
                if var asynchronous = parsed as? any AsyncParsableCommand {
                    try await asynchronous.run()
                } else {
                    try parsed.run()
                }
            } catch {
                PinVaultCommand.exit(withError: error)
            }
            finished.signal()
        }
        finished.wait()
    }
}
