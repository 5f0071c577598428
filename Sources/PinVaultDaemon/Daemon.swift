import Glibc
import Logging
import PinVaultCore
import PinVaultCrypto
import PinVaultStore
import PinVaultSystem
import PinVaultTransport

/// pinvaultd from start to exit: harden the process, read the configuration, open
/// the store and the pepper, listen, serve until SIGTERM/SIGINT, drain, close.
public enum Daemon {
    /// Exit statuses (sysexits.h where one fits).
    public enum ExitStatus: Int32, Sendable {
        case success = 0
        case failure = 1
        case configuration = 78  // EX_CONFIG
    }

    /// Runs the daemon on the calling (main) thread; returns its exit status.
    public static func run(_ options: DaemonOptions) -> ExitStatus {
        // Before any other thread exists, so that every thread inherits the mask.
        ShutdownSignals.blockInThisThread()
        do {
            try ProcessHardening.apply()
        } catch {
            return fail("cannot harden the process: \(error)", .failure)
        }

        let configuration: DaemonConfiguration
        do {
            configuration = try loadConfiguration(options)
        } catch {
            return fail("\(error)", .configuration)
        }
        let level = options.logLevel ?? configuration.logLevel ?? .info
        LoggingSystem.bootstrap { label in
            StderrLogHandler(label: label, level: level, journal: StderrLogHandler.stderrIsJournal)
        }
        let logger = Logger(label: "pinvaultd")
        do {
            return try serve(configuration, logger: logger)
        } catch let error as StartupError {
            logger.critical("\(error.message)")
            return error.status
        } catch {
            logger.critical("\(error)")
            return .failure
        }
    }

    /// The configuration file (absent default file: defaults), then the flags.
    static func loadConfiguration(_ options: DaemonOptions) throws -> DaemonConfiguration {
        var configuration: DaemonConfiguration
        if let path = options.configPath {
            configuration = try DaemonConfiguration.load(path: path)
        } else if access(DaemonConfiguration.defaultPath, F_OK) == 0 {
            configuration = try DaemonConfiguration.load(path: DaemonConfiguration.defaultPath)
        } else {
            configuration = .defaults
        }
        if let socketPath = options.socketPath {
            configuration.server.socketPath = socketPath
        }
        if let agentPath = options.sshAgentSocketPath {
            guard agentPath.isEmpty || (agentPath.hasPrefix("/") && agentPath.utf8.count <= 107) else {
                throw ConfigurationError(
                    file: "--ssh-agent-socket", reason: "must be an absolute path of at most 107 bytes, or \"\" for none"
                )
            }
            configuration.sshAgent.socketPath = agentPath
        }
        // Flag, then file, then systemd's StateDirectory= (the first, when it lists
        // several), then the fallback.
        let systemd = ProcessEnvironment.value("STATE_DIRECTORY")
            .flatMap { $0.split(separator: ":").first.map(String.init) }
        configuration.store.stateDirectory = options.stateDirectory
            ?? configuration.store.stateDirectory
            ?? systemd
            ?? DaemonConfiguration.Store.fallbackStateDirectory
        return configuration
    }

    struct StartupError: Error {
        let message: String
        let status: ExitStatus
        init(_ message: String, _ status: ExitStatus = .failure) {
            self.message = message
            self.status = status
        }
    }

    private static func serve(_ configuration: DaemonConfiguration, logger: Logger) throws -> ExitStatus {
        let notifier = SystemdNotifier()
        let stateDirectory = configuration.store.stateDirectory ?? DaemonConfiguration.Store.fallbackStateDirectory
        do {
            try StateDirectory.prepare(path: stateDirectory)
        } catch {
            throw StartupError("state directory: \(error)")
        }

        let storePath = stateDirectory + "/vault.sqlite"
        let store: VaultStore
        do {
            store = try VaultStore(path: storePath)
        } catch {
            throw StartupError("cannot open \(storePath): \(error)")
        }
        defer { store.close() }
        let (recordCount, corrupt) = try store.read { (try $0.totalCount(), try $0.corruptRecords()) }
        if !corrupt.isEmpty {
            logger.error("records that do not decode are ignored", metadata: ["count": "\(corrupt.count)"])
        }

        let pepper: Pepper
        do {
            let (loaded, source) = try PepperFile.load(
                credentialsDirectory: ProcessEnvironment.value("CREDENTIALS_DIRECTORY"),
                stateDirectory: stateDirectory,
                recordsExist: recordCount > 0
            )
            pepper = loaded
            logger.info("pepper loaded", metadata: ["source": "\(source)"])
        } catch {
            throw StartupError("pepper: \(error)")
        }

        let limits = try serverLimits(configuration)
        // Connections, the store, the listeners, epoll, eventfd, signalfd, logs.
        let descriptors = ProcessHardening.raiseDescriptorLimit()
        if descriptors < limits.maxConnections + 32 {
            logger.warning("the descriptor limit is below server.max_connections; accepting pauses when it is reached",
                           metadata: ["limit": "\(descriptors)", "max_connections": "\(limits.maxConnections)"])
        }
        let listeners = try listen(configuration, logger: logger)

        let vault = try VaultAssembly(
            configuration: configuration, store: store, pepper: pepper, logger: logger,
            processors: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        )
        defer { vault.shutdown() }
        let server = try Server(
            doors: listeners.map { listener in
                Server.Door(listener: listener.socket, handler: listener.protocol == .sshAgent ? vault.sshAgent : vault.varlink)
            },
            limits: limits,
            stats: vault.serverStats,
            notifier: notifier,
            logger: logger
        )

        let kdf = configuration.kdf
        let status = "Serving \(recordCount) credentials; KDF opslimit \(kdf.parameters.opslimit), "
            + "memlimit \(kdf.parameters.memlimit >> 20) MiB, \(vault.engine.kdfThreadCount) in parallel"
        logger.notice("pinvaultd \(PinVaultVersion.current) ready", metadata: [
            "socket": "\(configuration.server.socketPath)",
            "sshAgentSocket": "\(listeners.contains { $0.protocol == .sshAgent } ? configuration.sshAgent.socketPath : "none")",
            "state": "\(stateDirectory)",
            "credentials": "\(recordCount)",
        ])
        notifier.ready(status: status)

        try server.run()
        logger.notice("stopped")
        return .success
    }

    private static func serverLimits(_ configuration: DaemonConfiguration) throws -> ServerLimits {
        do {
            let admin = try configuration.access.adminGroup.map { name throws(GroupLookupError) in
                try GroupDatabase.gid(named: name)
            }
            var allowed = Set<UInt32>()
            for name in configuration.access.allowedGroups {
                allowed.insert(try GroupDatabase.gid(named: name))
            }
            return ServerLimits(
                maxConnections: configuration.server.maxConnections,
                maxConnectionsPerUid: configuration.server.maxConnectionsPerUid,
                idleTimeoutSeconds: configuration.server.idleTimeoutSeconds,
                allowedGroups: allowed,
                adminGroup: admin
            )
        } catch {
            throw StartupError("access: \(error)", .configuration)
        }
    }

    /// Which protocol a listening socket serves.
    enum SocketProtocol: Equatable {
        case varlink, sshAgent
    }

    /// The inherited sockets under socket activation, else the configured paths: the
    /// Varlink socket, and the agent's unless `ssh_agent.socket_path` is "". An
    /// inherited socket serves the agent when systemd named it `ssh-agent`
    /// (`FileDescriptorName=`, a socket unit of its own), or, named otherwise but not
    /// `varlink`, when it is bound to `ssh_agent.socket_path`: one socket unit names
    /// all its sockets alike, so the shipped pinvaultd.socket, which lists both, is
    /// told apart by path.
    private static func listen(
        _ configuration: DaemonConfiguration, logger: Logger
    ) throws -> [(socket: UnixListener, protocol: SocketProtocol)] {
        do {
            let inherited = SocketActivation.inheritedSockets()
            if !inherited.isEmpty {
                logger.info("using \(inherited.count) socket(s) from systemd")
                let agentPath = configuration.sshAgent.socketPath
                return try inherited.map { socket throws(ListenerError) in
                    let isAgent = socket.name == "ssh-agent"
                        || (socket.name != "varlink" && !agentPath.isEmpty && InheritedSocketPath.of(socket.fd) == agentPath)
                    return (try UnixListener.inherited(fd: socket.fd), isAgent ? .sshAgent : .varlink)
                }
            }
            let mode = mode_t(configuration.server.socketMode)
            var listeners = [(socket: try UnixListener.bind(path: configuration.server.socketPath, mode: mode), protocol: SocketProtocol.varlink)]
            if !configuration.sshAgent.socketPath.isEmpty {
                listeners.append((try UnixListener.bind(path: configuration.sshAgent.socketPath, mode: mode), .sshAgent))
            }
            return listeners
        } catch {
            throw StartupError("\(error)")
        }
    }

    private static func fail(_ message: String, _ status: ExitStatus) -> ExitStatus {
        var line = Array("pinvaultd: \(message)\n".utf8)
        _ = write(STDERR_FILENO, &line, line.count)
        return status
    }
}
