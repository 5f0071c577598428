import ArgumentParser
import Logging
import PinVaultDaemon

/// `pinvaultd [--config PATH] [--socket PATH] [--ssh-agent-socket PATH] [--state-directory PATH] [--log-level LEVEL]`
struct PinVaultDaemonCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pinvaultd",
        abstract: "Keep PIN-protected Ed25519 keys for the applications of this machine.",
        discussion: """
            Serves the Varlink interface io.pinvault.Vault on a Unix socket, and OpenSSH's \
            agent protocol on a second one for the keys its users unlocked. Under systemd \
            socket activation it serves the inherited sockets (FileDescriptorName=ssh-agent \
            for the agent's). Stop it with SIGTERM or SIGINT.
            """,
        version: PinVaultVersion.current
    )

    @Option(name: .long, help: ArgumentHelp("Configuration file.", valueName: "path"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("Socket to listen on (overrides server.socket_path).", valueName: "path"))
    var socket: String?

    @Option(name: .long, help: ArgumentHelp(
        "ssh-agent socket to listen on (overrides ssh_agent.socket_path; \"\" serves none).", valueName: "path"
    ))
    var sshAgentSocket: String?

    @Option(name: .long, help: ArgumentHelp("State directory (overrides store.state_directory).", valueName: "path"))
    var stateDirectory: String?

    @Option(name: .long, help: ArgumentHelp("trace, debug, info, notice, warning, error or critical.", valueName: "level"))
    var logLevel: String?

    func validate() throws {
        if let logLevel, Logger.Level(rawValue: logLevel) == nil {
            throw ValidationError("unknown log level '\(logLevel)'")
        }
    }

    func run() throws {
        let status = Daemon.run(DaemonOptions(
            configPath: config,
            socketPath: socket,
            sshAgentSocketPath: sshAgentSocket,
            stateDirectory: stateDirectory,
            logLevel: logLevel.flatMap(Logger.Level.init(rawValue:))
        ))
        if status != .success {
            throw ExitCode(status.rawValue)
        }
    }
}

PinVaultDaemonCommand.main()
