import ArgumentParser
import Logging
import PinVaultDaemon

/// `pinvaultd [--config PATH] [--socket PATH] [--state-directory PATH] [--log-level LEVEL]
/// [--exit-on-idle-seconds N]`
struct PinVaultDaemonCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pinvaultd",
        abstract: "Keep PIN-protected Ed25519 keys for the applications of this machine.",
        discussion: """
            Serves the Varlink interface io.pinvault.Vault on a Unix socket. Under systemd \
            socket activation it serves the inherited socket. Stop it with SIGTERM or SIGINT.
            """,
        version: PinVaultVersion.current
    )

    @Option(name: .long, help: ArgumentHelp("Configuration file.", valueName: "path"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("Socket to listen on (overrides server.socket_path).", valueName: "path"))
    var socket: String?

    @Option(name: .long, help: ArgumentHelp("State directory (overrides store.state_directory).", valueName: "path"))
    var stateDirectory: String?

    @Option(name: .long, help: ArgumentHelp("trace, debug, info, notice, warning, error or critical.", valueName: "level"))
    var logLevel: String?

    @Option(name: .long, help: ArgumentHelp(
        "Under socket activation, exit after this many idle seconds (overrides server.exit_on_idle_seconds; 0 never).",
        valueName: "seconds"
    ))
    var exitOnIdleSeconds: Int?

    func validate() throws {
        if let logLevel, Logger.Level(rawValue: logLevel) == nil {
            throw ValidationError("unknown log level '\(logLevel)'")
        }
        if let exitOnIdleSeconds, !(0...86400).contains(exitOnIdleSeconds) {
            throw ValidationError("--exit-on-idle-seconds must be 0 to 86400")
        }
    }

    func run() throws {
        let status = Daemon.run(DaemonOptions(
            configPath: config,
            socketPath: socket,
            stateDirectory: stateDirectory,
            logLevel: logLevel.flatMap(Logger.Level.init(rawValue:)),
            exitOnIdleSeconds: exitOnIdleSeconds
        ))
        if status != .success {
            throw ExitCode(status.rawValue)
        }
    }
}

PinVaultDaemonCommand.main()
