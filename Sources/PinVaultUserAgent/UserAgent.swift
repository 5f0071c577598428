import Glibc
import Logging
import PinVaultAgentDoor
import PinVaultDoor
import PinVaultSystem
import PinVaultTransport

/// `pinvault agent`: the per-user ssh-agent (pinvault(1), AGENT). It serves ssh on the
/// user's socket — the one the user unit `pinvault-agent.socket` passes it, or
/// `agentSocket`, bound 0600 in a 0700 directory — over the same transport and ssh-agent
/// door as pinvaultd's own socket, with pinvaultd behind it (`UserAgentBackend`).
public enum UserAgent {
    /// How long an ssh connection may sit idle with nothing asked (ssh keeps its agent
    /// connection while it authenticates; a forwarded agent opens one per use).
    static let idleTimeoutSeconds = 3600
    /// Connections at once, every peer together (only the user and root are served).
    static let maxConnections = 64

    /// Serves until SIGTERM or SIGINT (or, socket-activated, an hour with nothing to
    /// do: the user unit starts it again on the next connection).
    /// `listening` runs once the socket is bound and the agent about to serve: `pinvault
    /// agent` prints its shell lines there, or tells the process that started it.
    public static func run(
        _ configuration: AgentConfiguration, environment: [String: String], logger: Logger, listening: () -> Void = {}
    ) throws {
        // PINs pass through: no core dumps, no ptrace or /proc/PID/mem by the same uid
        // (as pinvaultd, and OpenSSH's ssh-agent).
        try ProcessHardening.apply()
        let listener = try listen(configuration)
        let settings = configuration.promptSettings(environment: environment)
        let prompts = settings.makePrompts(logger: logger)
        if prompts.isEmpty {
            logger.warning("no pinentry and no SSH_ASKPASS: locked keys cannot be unlocked through the agent (pinvault unlock them)")
        }
        let backend = UserAgentBackend(configuration: configuration, prompts: prompts, home: environment["HOME"], logger: logger)
        let activated = SocketActivation.isActive
        let server = try Server(
            doors: [Server.Door(listener: listener, handler: SSHAgentDoor(backend: backend))],
            limits: ServerLimits(
                maxConnections: maxConnections, maxConnectionsPerUid: maxConnections, idleTimeoutSeconds: idleTimeoutSeconds,
                exitOnIdleSeconds: activated ? 3600 : 0, allowedGroups: [], adminGroup: nil, shutdownGraceSeconds: 2
            ),
            stats: ServerStats(), notifier: SystemdNotifier(), logger: logger,
            // Asked on the loop, which owns the backend.
            hasWork: { backend.inFlight > 0 }
        )
        try backend.attach(server.descriptors)
        SystemdNotifier().ready(status: "Serving ssh on \(activated ? "the socket systemd passed" : configuration.agentSocket)")
        listening()
        try server.run()
    }

    /// The socket systemd passed (the user unit), or `agentSocket` bound here: its
    /// directory made 0700 when missing, the socket 0600 — only the user (and root) may
    /// reach it, and the agent serves no other uid anyway.
    static func listen(_ configuration: AgentConfiguration) throws -> UnixListener {
        if let inherited = SocketActivation.inheritedDescriptors().first {
            return try UnixListener.inherited(fd: inherited)
        }
        let path = configuration.agentSocket
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            let directory = String(path[..<slash])
            if mkdir(directory, 0o700) != 0 && errno != EEXIST {
                throw SystemError(call: "mkdir \(directory)", errno: errno)
            }
        }
        return try UnixListener.bind(path: path, mode: 0o600)
    }
}
