import Logging

extension DaemonOptions {
    /// What the command line asked for.
    public enum Invocation: Sendable {
        case run(DaemonOptions)
        case help
        case version
    }

    /// A command line `parse` refuses; `description` says why, in one line.
    public struct UsageError: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// `pinvaultd --help`.
    public static let help = """
        USAGE: pinvaultd [--config <path>] [--socket <path>] [--ssh-agent-socket <path>]
                         [--ctaphid-socket <path>] [--state-directory <path>] [--log-level <level>]
                         [--exit-on-idle-seconds <seconds>]

        Keep PIN-protected signing keys for the applications of this machine.

        Serves the Varlink interface io.pinvault.Vault on a Unix socket, and OpenSSH's
        agent protocol on a second one for the keys its users unlocked, and CTAPHID (a
        FIDO security key's reports) on a third. Under systemd socket activation it
        serves the inherited sockets (FileDescriptorName=ssh-agent for the agent's,
        ctaphid for CTAPHID's). Stop it with SIGTERM or SIGINT.

        OPTIONS:
          --config <path>         Configuration file (default \(DaemonConfiguration.defaultPath)).
          --socket <path>         Socket to listen on (overrides server.socket_path).
          --ssh-agent-socket <path>
                                  ssh-agent socket to listen on (overrides
                                  ssh_agent.socket_path; "" serves none).
          --ctaphid-socket <path> CTAPHID socket to listen on (overrides
                                  webauthn.socket; "" serves none).
          --state-directory <path>
                                  State directory (overrides store.state_directory).
          --log-level <level>     trace, debug, info, notice, warning, error or critical.
          --exit-on-idle-seconds <seconds>
                                  Under socket activation, exit after this many idle
                                  seconds (overrides server.exit_on_idle_seconds; 0 never).
          --version               Show the version.
          -h, --help              Show help information.

        """

    /// Reads pinvaultd's arguments (without the program name): `--name value` or
    /// `--name=value`, each option at most once. The daemon takes seven options, so
    /// they are read here rather than by a parsing library that would bring a
    /// Foundation into the daemon's memory.
    public static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        var options = DaemonOptions()
        var seen = Set<String>()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "-h", "--help": return .help
            case "--version": return .version
            default: break
            }
            guard argument.hasPrefix("--") else { throw UsageError(description: "unexpected argument '\(argument)'") }
            let (name, inline) = split(argument)
            guard seen.insert(name).inserted else { throw UsageError(description: "\(name) given twice") }
            func value() throws(UsageError) -> String {
                if let inline { return inline }
                guard let next = remaining.popFirst(), !next.hasPrefix("--") else {
                    throw UsageError(description: "missing value for '\(name)'")
                }
                return next
            }
            switch name {
            case "--config": options.configPath = try value()
            case "--socket": options.socketPath = try value()
            case "--ssh-agent-socket": options.sshAgentSocketPath = try value()
            case "--ctaphid-socket": options.ctaphidSocketPath = try value()
            case "--state-directory": options.stateDirectory = try value()
            case "--log-level":
                let text = try value()
                guard let level = Logger.Level(rawValue: text) else { throw UsageError(description: "unknown log level '\(text)'") }
                options.logLevel = level
            case "--exit-on-idle-seconds":
                let text = try value()
                guard let seconds = Int(text), (0...86400).contains(seconds) else {
                    throw UsageError(description: "--exit-on-idle-seconds must be 0 to 86400, got '\(text)'")
                }
                options.exitOnIdleSeconds = seconds
            default:
                throw UsageError(description: "unknown option '\(name)'")
            }
        }
        return .run(options)
    }

    /// `--name=value` as (`--name`, `value`); `--name` as (`--name`, nil).
    private static func split(_ argument: String) -> (String, String?) {
        guard let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }
}
