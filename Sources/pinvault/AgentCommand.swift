import ArgumentParser
import FoundationEssentials
import Logging
import PinVaultConfiguration
import PinVaultSystem
import PinVaultUserAgent

/// `pinvault agent [--agent-socket PATH] [--config FILE] [--tty TTY]`
struct AgentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "Run the per-user ssh-agent that asks for the PIN when ssh needs a key.",
        discussion: """
            An ssh-agent for your ssh keys (registered with --purpose ssh), locked ones \
            too: when ssh or git asks it to sign with a locked key, it asks for the PIN \
            through pinentry (or SSH_ASKPASS), unlocks the key in pinvaultd for \
            unlock_ttl_seconds (default 15 minutes), and signs. A cancelled prompt costs no \
            attempt; after a wrong PIN the next prompt says how many are left. It offers the \
            certificates attached to a key (pinvault ssh-cert), refuses to sign for a \
            connection ssh forwarded (ssh -A) unless the key may be (allow_forwarding, or \
            pinvault unlock --allow-forwarding), and asks before each use of the keys named \
            in confirm. The user unit starts it on demand:

              systemctl --user enable --now pinvault-agent.socket
              export SSH_AUTH_SOCK=$XDG_RUNTIME_DIR/pinvault/agent.sock

            Settings: [agent] in $XDG_CONFIG_HOME/pinvault/agent.toml (~/.config/…): \
            unlock_ttl_seconds, prompt_timeout_seconds, pinentry, confirm, allow_forwarding.
            """
    )

    @OptionGroup var daemon: DaemonSocketOption
    /// `pinvault --json agent`: the root's options, to refuse the one the agent has no use for.
    @ParentCommand var root: PinVaultCommand

    @Option(help: ArgumentHelp("The socket to serve ssh on (default: $XDG_RUNTIME_DIR/pinvault/agent.sock).", valueName: "path"))
    var agentSocket: String?

    @Option(help: ArgumentHelp("The settings file (default: $XDG_CONFIG_HOME/pinvault/agent.toml).", valueName: "file"))
    var config: String?

    @Option(help: ArgumentHelp("The terminal pinentry asks on when there is no display.", valueName: "tty"))
    var tty: String?

    func validate() throws {
        if root.global.json { throw ValidationError("pinvault agent prints no replies: --json is for the other commands") }
    }

    func run() throws {
        guard let agentSocket = agentSocket ?? AgentConfiguration.defaultAgentSocket else {
            throw CommandFailure.usage("no XDG_RUNTIME_DIR: name the agent's socket with --agent-socket")
        }
        let daemonSocket = daemon.socketPath
        var settings = AgentConfiguration(agentSocket: agentSocket, daemonSocket: daemonSocket)
        settings.tty = tty
        do {
            if let file = config ?? AgentConfiguration.defaultConfigFile { try settings.read(file: file) }
        } catch {
            StandardStream.error.write("pinvault agent: \(error)\n")
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        var logger = Logger(label: "pinvault-agent") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .notice
        do {
            try UserAgent.run(settings, environment: ProcessInfo.processInfo.environment, logger: logger)
        } catch {
            StandardStream.error.write("pinvault agent: \(error)\n")
            throw ExitCode(ExitStatus.unavailable.rawValue)
        }
    }
}
