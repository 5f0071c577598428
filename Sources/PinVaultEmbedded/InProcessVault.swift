import Logging
import PinVaultCTAPHID
import PinVaultCore
import PinVaultCrypto
import PinVaultDaemon
import PinVaultDoor
import PinVaultStore
import PinVaultSystem
import PinVaultTransport
import Synchronization

/// pinvaultd's request path without sockets or an event loop, for the fuzzer (`Fuzz/`)
/// and for tests that need every method path in process: the daemon's own composition
/// root (`VaultAssembly`) builds the engine and the Varlink door, frames go through
/// the door's `handle` as the event loop would hand them over, and each answer is
/// awaited before the next frame. Not part of the shipped daemon.
///
/// The store lives in `stateDirectory`, which must exist and stay private; the KDF
/// parameters default to the weakest libsodium accepts, so a call costs microseconds.
/// The clock is virtual: it starts at `startTime` and moves only by `advanceClock`.
public final class InProcessVault {
    /// What became of one frame.
    public enum Outcome: Equatable, Sendable {
        /// It was answered: the reply's bytes go to the inspecting closure.
        case replied
        /// A `oneway` call: the call ran, the reply was dropped.
        case noReply
        /// Not a Varlink call: the daemon would close the connection.
        case closed
    }

    private let assembly: VaultAssembly
    private let store: VaultStore
    private let clock: VirtualClock
    /// Every reply is written here, inspected in place and zeroed at once, as a
    /// connection's buffer is zeroed after sending: no copy of a reply is made.
    private let replyBuffer = ReplyBuffer()
    private var nextConnection: ConnectionID = 1

    /// A vault over `stateDirectory/vault.sqlite` with a fresh pepper and the default
    /// configuration, except for `kdf` and `lockout` (short waits, so that tests and the
    /// fuzzer reach every state), small pools, and `server.max_message_bytes` when
    /// `maxMessageBytes` is given (a fuzzer's inputs reach a small limit's edge).
    public init(
        stateDirectory: String,
        kdf: KDFParameters = KDFParameters(opslimit: 1, memlimit: 8192),
        lockout: LockoutPolicy = LockoutPolicy(throttleAfter: 3, throttleBaseSeconds: 1, throttleMaxSeconds: 2, maxAttempts: 5),
        maxMessageBytes: Int? = nil,
        startTime: Int64 = 1_700_000_000
    ) throws {
        var configuration = DaemonConfiguration.defaults
        if let maxMessageBytes { configuration.server.maxMessageBytes = maxMessageBytes }
        configuration.kdf.parameters = kdf
        configuration.kdf.allowWeak = true
        configuration.kdf.maxParallel = 1
        configuration.kdf.queueMax = 8
        configuration.kdf.queuePerUid = 8
        configuration.server.maxConnections = 8
        configuration.server.maxConnectionsPerUid = 8
        configuration.lockout = lockout
        store = try VaultStore(path: stateDirectory + "/vault.sqlite")
        let clock = VirtualClock(startTime)
        self.clock = clock
        assembly = try VaultAssembly(
            configuration: configuration, store: store, pepper: try Pepper.generate(),
            logger: Logger(label: "pinvault-inprocess") { _ in SwiftLogNoOpLogHandler() },
            now: { clock.seconds }, processors: 1
        )
    }

    deinit {
        assembly.shutdown()
        store.close()
    }

    /// Moves the virtual clock on (to let throttling and unregistration expire).
    public func advanceClock(seconds: Int64) {
        clock.advance(seconds)
    }

    /// The `io.pinvault.Vault` door and what it counts, for a harness that serves it
    /// through the real event loop (`SteppedEventLoop`) instead of `exchange`.
    public var varlinkDoor: any MessageHandler { assembly.varlink }
    public var serverStats: ServerStats { assembly.serverStats }
    /// The security key, as the CTAPHID door calls it (CTAP2 messages by channel).
    public var authenticator: any CTAPAuthenticator { assembly.authenticator }

    /// Handles one frame (NUL excluded) from `peer`, waits for its answer, and hands it
    /// to `inspect`: what became of the frame, and the reply's bytes (NUL excluded;
    /// empty unless `.replied`) where the door wrote them. The reply buffer is zeroed as
    /// soon as `inspect` returns, so a reply outlives the call only in what `inspect`
    /// chooses to keep.
    public func exchange<R, E: Error>(
        frame: UnsafeRawBufferPointer, peer: Peer,
        inspect: (Outcome, UnsafeRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        let answer = Answer()
        let route = ReplyRoute(
            peer: peer, connection: nextConnection, peerHasLeft: false, reply: replyBuffer,
            deliver: { answer.deliver($0) }
        )
        nextConnection += 1
        if case .close = assembly.varlink.handle(message: frame, route: route) {
            return try inspect(.closed, UnsafeRawBufferPointer(start: nil, count: 0))
        }
        let reply = answer.wait()
        defer { reply.zero() }
        if route.isOneway { return try inspect(.noReply, UnsafeRawBufferPointer(start: nil, count: 0)) }
        // The encoded reply ends with its NUL.
        return try reply.withUnsafeBytes { (bytes) throws(E) -> R in
            try inspect(.replied, UnsafeRawBufferPointer(rebasing: bytes.dropLast()))
        }
    }

    /// Hands one ssh-agent message (type and body, the length excluded) from `peer` to
    /// the agent door, waits for its reply — one whole frame, length included — and hands
    /// it to `inspect` where the door wrote it, zeroed when `inspect` returns. The agent
    /// door closes no connection for a message (only its framing does), so there is
    /// always a reply. Each message comes on a connection of its own, unless
    /// `connection` names one (a session-bind and the requests after it).
    public func exchangeAgent<R, E: Error>(
        message: UnsafeRawBufferPointer, peer: Peer, connection: ConnectionID? = nil,
        inspect: (UnsafeRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        let answer = Answer()
        let route = ReplyRoute(
            peer: peer, connection: connection ?? nextConnection, peerHasLeft: false, reply: replyBuffer,
            deliver: { answer.deliver($0) }
        )
        if connection == nil { nextConnection += 1 }
        _ = assembly.sshAgent.handle(message: message, route: route)
        let reply = answer.wait()
        defer { reply.zero() }
        return try reply.withUnsafeBytes { (bytes) throws(E) -> R in try inspect(bytes) }
    }

    /// A reply handed over from whichever thread finished the call.
    private final class Answer: @unchecked Sendable {
        private let lock = ConditionLock()
        private var reply: ReplyBuffer?

        func deliver(_ buffer: ReplyBuffer) {
            lock.withLock {
                reply = buffer
                lock.broadcast()
            }
        }

        func wait() -> ReplyBuffer {
            lock.withLock {
                while true {
                    if let reply { return reply }
                    lock.wait()
                }
            }
        }
    }

    /// Seconds that pass only when told to.
    private final class VirtualClock: Sendable {
        private let now: Atomic<Int64>

        init(_ start: Int64) { now = Atomic(start) }

        var seconds: Int64 { now.load(ordering: .relaxed) }

        func advance(_ seconds: Int64) { now.add(seconds, ordering: .relaxed) }
    }
}
