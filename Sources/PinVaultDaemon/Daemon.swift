import PinVaultConfiguration
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
        if let seconds = options.exitOnIdleSeconds {
            configuration.server.exitOnIdleSeconds = seconds
        }
        if let agentPath = options.sshAgentSocketPath {
            guard agentPath.isEmpty || (agentPath.hasPrefix("/") && agentPath.utf8.count <= 107) else {
                throw ConfigurationError(
                    file: "--ssh-agent-socket", reason: "must be an absolute path of at most 107 bytes, or \"\" for none"
                )
            }
            configuration.sshAgent.socketPath = agentPath
        }
        if let ctaphidPath = options.ctaphidSocketPath {
            guard ctaphidPath.isEmpty || (ctaphidPath.hasPrefix("/") && ctaphidPath.utf8.count <= 107) else {
                throw ConfigurationError(
                    file: "--ctaphid-socket", reason: "must be an absolute path of at most 107 bytes, or \"\" for none"
                )
            }
            configuration.webAuthn.socketPath = ctaphidPath
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

        // The socket paths are claimed (their locks taken) before the vault is opened: a
        // second daemon started on the same paths (a second `make run`) is told that
        // another daemon serves them, instead of opening the vault that daemon has open
        // and reading its live write-ahead log as an unclean stop. They are bound below,
        // once the vault is ready: a connection accepted means a daemon that answers.
        let claims = try claim(configuration)

        let storePath = stateDirectory + "/vault.sqlite"
        let store: VaultStore
        do {
            store = try VaultStore(path: storePath)
        } catch {
            throw StartupError("cannot open \(storePath): \(error)")
        }
        defer { store.close() }
        if store.checkedIntegrity {
            logger.notice("the vault was not closed cleanly last time: checked its integrity (quick_check) before serving")
        }
        // One probe, not a count: the start reads no row (docs/OPERATIONS.md, "Start").
        let recordsExist = try !store.read { try $0.isEmpty() }

        let pepper: Pepper
        let source: PepperSource
        do {
            (pepper, source) = try PepperFile.load(
                credentialsDirectory: ProcessEnvironment.value("CREDENTIALS_DIRECTORY"),
                stateDirectory: stateDirectory,
                recordsExist: recordsExist
            )
            logger.info("pepper loaded", metadata: ["source": "\(source)"])
        } catch {
            // A pepper refusal is configuration: a restart would meet the same files
            // (the unit's RestartPreventExitStatus= names 78).
            throw StartupError("pepper: \(error)", .configuration)
        }
        try checkPepper(pepper, from: source, against: store, logger: logger)

        let limits = try serverLimits(configuration)
        let exitOnIdle = configuration.server.exitOnIdleSeconds
        if exitOnIdle > 0 && !SocketActivation.isActive {
            throw StartupError(
                "server.exit_on_idle_seconds is \(exitOnIdle), but pinvaultd was not socket-activated: "
                    + "nothing would start it again (set it to 0, or start pinvaultd through pinvaultd.socket)",
                .configuration
            )
        }
        // Connections, the store, the listeners, epoll, eventfd, signalfd, logs.
        let descriptors = ProcessHardening.raiseDescriptorLimit()
        if descriptors < limits.maxConnections + 32 {
            logger.warning("the descriptor limit is below server.max_connections; accepting pauses when it is reached",
                           metadata: ["limit": "\(descriptors)", "max_connections": "\(limits.maxConnections)"])
        }
        let listeners = try listen(configuration, claims: claims, logger: logger)
        let vault = try VaultAssembly(
            configuration: configuration, store: store, pepper: pepper, logger: logger,
            processors: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        )
        defer { vault.shutdown() }
        let server = try Server(
            doors: listeners.map { Server.Door(listener: $0.socket, handler: $0.door.handler(vault)) },
            limits: limits,
            stats: vault.serverStats,
            notifier: notifier,
            logger: logger,
            hasWork: { vault.engine.hasWork },
            backlog: vault.loopBacklog
        )

        let kdf = configuration.kdf
        let status = "Serving; KDF opslimit \(kdf.parameters.opslimit), "
            + "memlimit \(kdf.parameters.memlimit >> 20) MiB, \(vault.engine.kdfThreadCount) in parallel"
        logger.notice("pinvaultd \(PinVaultVersion.current) ready", metadata: [
            "socket": "\(configuration.server.socketPath)",
            "sshAgentSocket": "\(served("ssh-agent", listeners, configuration))",
            "ctaphidSocket": "\(served("ctaphid", listeners, configuration))",
            "state": "\(stateDirectory)",
        ])
        notifier.ready(status: status)
        vault.engine.sweepStoredRecords()

        switch try server.run() {
        case .signal:
            logger.notice("stopped")
        case .idle:
            logger.notice("stopped after server.exit_on_idle_seconds with nothing to do; the socket stays with systemd")
        }
        return .success
    }

    /// Refuses a pepper the vault's records were not sealed with (every right PIN would
    /// count as wrong, and `on_max_attempts = "wipe"` would delete them in ordinary
    /// use); records the check value of the first pepper a vault starts with.
    private static func checkPepper(_ pepper: Pepper, from source: PepperSource, against store: VaultStore, logger: Logger) throws {
        let verdict: VaultStore.PepperVerdict
        do {
            verdict = try store.checkPepper(pepper)
        } catch {
            throw StartupError("pepper check in \(store.path): \(error)")
        }
        switch verdict {
        case .matches:
            break
        case .recorded(let records) where records > 0:
            logger.notice("the vault had no pepper check value (written before PinVault kept one): recorded the check value of the pepper it started with; from now on a start with another pepper is refused", metadata: [
                "source": "\(source)", "credentials": "\(records)", "vault": "\(store.path)",
            ])
        case .recorded:
            logger.info("recorded the check value of the pepper in the new vault", metadata: ["source": "\(source)"])
        case .replacedOnEmptyVault:
            logger.notice("the vault holds no credentials and recorded another pepper: recorded the check value of this one instead", metadata: [
                "source": "\(source)", "vault": "\(store.path)",
            ])
        case .mismatch(let records):
            throw StartupError(
                "pepper \(source.path) does not match the pepper the \(records) credential(s) in \(store.path) were sealed with "
                    + "(its recorded check value differs): no PIN would open them, and each right PIN would count as wrong. "
                    + "Restore the pepper they were sealed with: its recovery key (pinvault-seal-pepper --recover=FILE) "
                    + "or a backup (docs/OPERATIONS.md, \"When the pepper does not open\").",
                .configuration
            )
        }
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
                maxMessageBytes: configuration.server.maxMessageBytes,
                idleTimeoutSeconds: configuration.server.idleTimeoutSeconds,
                exitOnIdleSeconds: configuration.server.exitOnIdleSeconds,
                allowedGroups: allowed,
                adminGroup: admin
            )
        } catch {
            throw StartupError("access: \(error)", .configuration)
        }
    }

    /// The path a door listens on, for the ready message: "none" when it serves nothing.
    private static func served(
        _ name: String, _ listeners: [(socket: UnixListener, door: DoorEntry)], _ configuration: DaemonConfiguration
    ) -> String {
        guard let door = listeners.first(where: { $0.door.name == name })?.door else { return "none" }
        return door.path(configuration)
    }

    /// The paths pinvaultd binds itself (none when systemd passes the sockets), each
    /// claimed with its door, in the registry's order: the Varlink socket's last.
    private static func claim(
        _ configuration: DaemonConfiguration, unlessActivated: Bool = true
    ) throws -> [(claim: UnixListener.Claim, door: DoorEntry)] {
        if unlessActivated && SocketActivation.isActive { return [] }
        do {
            return try DoorRegistry.doors.compactMap { door throws(ListenerError) -> (claim: UnixListener.Claim, door: DoorEntry)? in
                let path = door.path(configuration)
                return path.isEmpty ? nil : (try UnixListener.claim(path: path), door)
            }
        } catch {
            throw StartupError("\(error)")
        }
    }

    /// The inherited sockets under socket activation, each with the door it serves
    /// (`DoorRegistry.door`), else every door's claimed path, bound.
    private static func listen(
        _ configuration: DaemonConfiguration, claims: [(claim: UnixListener.Claim, door: DoorEntry)], logger: Logger
    ) throws -> [(socket: UnixListener, door: DoorEntry)] {
        do {
            let inherited = SocketActivation.inheritedSockets()
            if !inherited.isEmpty {
                logger.info("using \(inherited.count) socket(s) from systemd")
                return try inherited.map { socket in
                    let path = InheritedSocketPath.of(socket.fd)
                    let door = DoorRegistry.door(forSocketNamed: socket.name, boundTo: path, configuration)
                    // A door turned off is still told apart by its shipped path: a unit left
                    // unchanged must not get Varlink served on its socket.
                    if door.path(configuration).isEmpty {
                        throw StartupError(
                            "systemd passed the \(door.name) socket \(path ?? socket.name ?? "fd \(socket.fd)"), but \(door.setting) is \"\" "
                                + "(the door is off): remove its ListenStream= from pinvaultd.socket, or set \(door.setting)",
                            .configuration
                        )
                    }
                    return (try UnixListener.inherited(fd: socket.fd), door)
                }
            }
            let mode = mode_t(configuration.server.socketMode)
            // None claimed when LISTEN_FDS named sockets it could not pass (64 or more).
            let claims = claims.isEmpty ? try claim(configuration, unlessActivated: false) : claims
            return try claims.map { claimed in (try UnixListener.bind(claimed.claim, mode: mode), claimed.door) }
        } catch let error as StartupError {
            throw error
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
