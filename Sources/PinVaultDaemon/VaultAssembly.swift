import Glibc
import Logging
import PinVaultCTAPHID
import PinVaultCTAPHIDDoor
import PinVaultCrypto
import PinVaultDoor
import PinVaultEngine
import PinVaultAgentDoor
import PinVaultSSHAgent
import PinVaultStore
import PinVaultSystem
import PinVaultTransport
import PinVaultVarlink
import PinVaultWebAuthn

/// The one composition root: a configuration's vault — the engine over an open store
/// and its pepper, and the front doors over the engine. `Daemon` serves the doors on
/// sockets; the fuzzer and the tests drive the same assembly in process
/// (`PinVaultEmbedded`), so that all three run exactly what ships.
public final class VaultAssembly: Sendable {
    public let engine: VaultEngine
    /// What the transport counts, for GetStats; the daemon's `Server` counts into it.
    public let serverStats: ServerStats
    /// Set by the daemon's `Server` before each request, read by the engine's signatures
    /// on the loop (`SigningBudget`).
    public let loopBacklog = LoopBacklog()
    /// The `io.pinvault.Vault` door.
    public let varlink: VarlinkFrontDoor
    /// The ssh-agent door, over the same engine (its sessions).
    public let sshAgent: SSHAgentDoor
    /// The CTAPHID door (passkeys), over the authenticator.
    public let ctaphid: CTAPHIDDoor
    /// The security key behind the CTAPHID door (the fuzzer drives it directly too).
    public let authenticator: any CTAPAuthenticator

    /// Starts the engine's pools for `configuration` (the store and pepper stay the
    /// caller's: it closes the store after `shutdown`). `now` is the wall clock in
    /// seconds; `processors` sizes the KDF pool when `kdf.max_parallel` is 0.
    public init(
        configuration: DaemonConfiguration,
        store: VaultStore,
        pepper: Pepper,
        logger: Logger,
        now: @escaping @Sendable () -> Int64 = WallClock.seconds,
        processors: Int
    ) throws(SystemError) {
        engine = try VaultEngine(
            settings: configuration.engineSettings(processors: processors),
            store: store, pepper: pepper, logger: logger, now: now, loopBacklog: loopBacklog
        )
        serverStats = ServerStats()
        varlink = VarlinkFrontDoor(
            engine: engine, serverStats: serverStats,
            version: PinVaultVersion.current, maxMessageBytes: configuration.server.maxMessageBytes
        )
        sshAgent = SSHAgentFrontDoor.make(engine: engine)
        // The security key's ECDH key for ClientPIN, made once per start, as CTAP's
        // key agreement key is made once per power-up.
        let authenticator: EngineAuthenticator
        do {
            authenticator = try EngineAuthenticator(engine: engine)
            self.authenticator = authenticator
        } catch let error as SystemError {
            throw error
        } catch {
            throw SystemError(call: "the security key's key agreement (\(error))", errno: EIO)
        }
        ctaphid = CTAPHIDDoor(authenticator: authenticator)
    }

    /// Stops the engine's pools (queued work runs or is dropped if cancelled) and ends
    /// every unlock session, zeroing its key.
    public func shutdown() {
        engine.shutdown()
    }
}

extension DaemonConfiguration {
    /// What the engine takes of the configuration. The store queue holds at most one
    /// request per connection (a connection has one call in flight).
    func engineSettings(processors: Int) -> VaultEngine.Settings {
        VaultEngine.Settings(
            policy: policy,
            lockout: lockout,
            kdf: kdf.parameters,
            kdfMaximum: kdf.maximum,
            unregisterExpirySeconds: unregister.expirySeconds,
            maxCredentialsPerUser: credentials.maxPerUser,
            maxCredentialsPerUid: credentials.maxPerUid,
            maxCredentialsTotal: credentials.maxTotal,
            kdfThreads: kdf.maxParallel > 0 ? kdf.maxParallel : max(processors, 1),
            kdfQueueMax: kdf.queueMax,
            kdfQueuePerUid: kdf.queuePerUid,
            storeQueueMax: server.maxConnections,
            storeQueuePerUid: server.maxConnectionsPerUid,
            sessionMaxTtlSeconds: sessions.maxTtlSeconds,
            sessionsPerUid: sessions.maxPerUid
        )
    }
}
