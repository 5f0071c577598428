import Logging

/// What the command line may say (docs/OPERATIONS.md). A flag beats the file, the file
/// beats the default.
public struct DaemonOptions: Sendable {
    public var configPath: String?
    public var socketPath: String?
    /// `--ssh-agent-socket`: overrides `ssh_agent.socket_path` ("" serves none).
    public var sshAgentSocketPath: String?
    /// `--ctaphid-socket`: overrides `webauthn.socket` ("" serves none).
    public var ctaphidSocketPath: String?
    public var stateDirectory: String?
    public var logLevel: Logger.Level?
    public var exitOnIdleSeconds: Int?

    public init(
        configPath: String? = nil, socketPath: String? = nil, sshAgentSocketPath: String? = nil,
        stateDirectory: String? = nil, logLevel: Logger.Level? = nil, exitOnIdleSeconds: Int? = nil,
        ctaphidSocketPath: String? = nil
    ) {
        self.ctaphidSocketPath = ctaphidSocketPath
        self.configPath = configPath
        self.socketPath = socketPath
        self.sshAgentSocketPath = sshAgentSocketPath
        self.stateDirectory = stateDirectory
        self.logLevel = logLevel
        self.exitOnIdleSeconds = exitOnIdleSeconds
    }
}
