import Logging
import PinVaultCore
import PinVaultCrypto
import PinVaultProtocol
import PinVaultStore
import Synchronization

/// pinvaultd's request path without sockets or an event loop: frames go through the
/// same `VaultDispatcher`, `VaultService`, pools and store as in the daemon, and each
/// answer is awaited before the next frame. For the fuzzer (`Fuzz/`) and for tests
/// that need every method path in process.
///
/// The store lives in `stateDirectory`, which must exist and stay private; the KDF
/// parameters default to the weakest libsodium accepts, so a call costs microseconds.
/// The clock is virtual: it starts at `startTime` and moves only by `advanceClock`.
public final class InProcessVault {
    /// What one frame produced.
    public enum Outcome: Equatable, Sendable {
        /// The reply's bytes, NUL excluded.
        case reply([UInt8])
        /// A `oneway` call: the call ran, the reply was dropped.
        case noReply
        /// Not a Varlink call: the daemon would close the connection.
        case closed
    }

    private let dispatcher: VaultDispatcher
    private let store: VaultStore
    private let kdfPool: WorkPool
    private let storeQueue: WorkPool
    private let clock: VirtualClock

    /// A vault over `stateDirectory/vault.sqlite` with a fresh pepper and the default
    /// policies, except for `kdf` and `lockout` (short waits, so that tests and the
    /// fuzzer reach every state).
    public init(
        stateDirectory: String,
        kdf: KDFParameters = KDFParameters(opslimit: 1, memlimit: 8192),
        lockout: LockoutPolicy = LockoutPolicy(throttleAfter: 3, throttleBaseSeconds: 1, throttleMaxSeconds: 2, maxAttempts: 5),
        startTime: Int64 = 1_700_000_000
    ) throws {
        store = try VaultStore(path: stateDirectory + "/vault.sqlite")
        kdfPool = try WorkPool(name: "pv-kdf", threads: 1, queueMax: 8, perUidMax: 8)
        storeQueue = try WorkPool(name: "pv-store", threads: 1, queueMax: 8, perUidMax: 8)
        let clock = VirtualClock(startTime)
        self.clock = clock
        let service = VaultService(
            settings: VaultService.Settings(
                policy: PinPolicy(),
                lockout: lockout,
                kdf: kdf,
                unregisterExpirySeconds: 300,
                maxCredentialsPerUser: 8,
                maxCredentialsPerUid: 64
            ),
            store: store,
            pepper: try Pepper.generate(),
            kdfPool: kdfPool,
            storeQueue: storeQueue,
            stats: ServiceStats(),
            logger: Logger(label: "pinvault-inprocess") { _ in SwiftLogNoOpLogHandler() },
            now: { clock.seconds }
        )
        dispatcher = VaultDispatcher(service: service, version: PinVaultVersion.current)
    }

    deinit {
        kdfPool.shutdown()
        storeQueue.shutdown()
        store.close()
    }

    /// Moves the virtual clock on (to let throttling and unregistration expire).
    public func advanceClock(seconds: Int64) {
        clock.advance(seconds)
    }

    /// Handles one frame (NUL excluded) from `peer` and waits for its answer.
    public func exchange(frame: UnsafeRawBufferPointer, peer: Peer) -> Outcome {
        switch dispatcher.handle(frame: frame, peer: peer) {
        case .protocolViolation:
            return .closed
        case .call(let oneway, let start):
            let answer = Answer()
            let context = CallContext(peer: peer, oneway: oneway, reply: ReplyBuffer()) { answer.deliver($0) }
            start(context)
            let reply = answer.wait()
            if oneway { return .noReply }
            // The encoded reply ends with its NUL.
            return .reply(Array(reply.copyBytes().dropLast()))
        }
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
