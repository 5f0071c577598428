import ArgumentParser
import Glibc
import PinVaultClient
import PinVaultSystem

/// Which daemon: `--socket`, else `$PINVAULT_SOCKET`, else the system socket. Every
/// command that talks to pinvaultd takes it, `pinvault agent` too.
struct DaemonSocketOption: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The daemon's socket (default: $PINVAULT_SOCKET, else \(PinVaultClient.defaultSocketPath)).",
        valueName: "path"
    ))
    var socket: String?

    /// The socket to connect to.
    var socketPath: String {
        if let socket { return socket }
        if let configured = ProcessEnvironment.value("PINVAULT_SOCKET"), !configured.isEmpty {
            return configured
        }
        return PinVaultClient.defaultSocketPath
    }
}

/// The options every command takes: which daemon, and which output. They may come
/// before the command's name (`pinvault --socket PATH policy`) or after it (`pinvault
/// policy --socket PATH`): `PinVaultCommand` declares the same group, and
/// swift-argument-parser hands the group it parsed to the subcommand's `@OptionGroup`
/// of the same type, wherever on the line its options stood.
struct GlobalOptions: ParsableArguments {
    @OptionGroup var daemon: DaemonSocketOption

    @Flag(help: "Print the daemon's reply (or the error) as JSON on stdout, in the interface's field names and encodings.")
    var json = false

    /// The socket to connect to.
    var socketPath: String { daemon.socketPath }

    /// Where this command writes.
    var console: Console { Console(json: json) }

    /// Connects to the daemon.
    func connect() throws(CommandFailure) -> PinVaultClient {
        do {
            return try PinVaultClient(socketPath: socketPath)
        } catch {
            throw CommandFailure(error)
        }
    }

    /// Fails now when the daemon is unreachable, so that nobody types a PIN for nothing.
    /// The call itself then gets a fresh connection: typing may take longer than the
    /// daemon's idle timeout.
    func checkDaemon() throws(CommandFailure) {
        try connect().close()
    }

    /// Asks the daemon whether `pin` meets the policy (CheckPin, which counts and
    /// stores nothing); a PIN that breaks it is PinPolicyViolation, as Register would
    /// answer. Consumes `pin`.
    func requirePolicy(_ pin: PIN) async throws {
        let client = try connect()
        defer { client.close() }
        let check = try await client.checkPin(pin)
        if !check.valid { throw CommandFailure(.pinPolicyViolation(check.violations)) }
    }

    /// Runs `body`, then reports its failure (human or JSON) and ends with its status.
    /// When stdout could not be written (a closed pipe, a full disk), says so on stderr
    /// and ends with status 1 unless the command failed otherwise.
    func run(_ body: (Console) async throws -> ExitStatus) async throws {
        let console = self.console
        var status: ExitStatus
        do {
            status = try await body(console)
        } catch let failure as CommandFailure {
            console.report(failure)
            status = failure.status
        } catch let error as PinVaultError {
            console.report(CommandFailure(error))
            status = ExitStatus(error)
        }
        if let code = StandardStream.outputError {
            StandardStream.error.write("pinvault: cannot write to standard output: \(String(cString: strerror(code)))\n")
            if status == .success { status = .failure }
        }
        if status != .success { throw status.exitCode }
    }
}
