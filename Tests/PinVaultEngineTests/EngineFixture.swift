import Foundation
import Glibc
import Logging
import PinVaultCore
import PinVaultCrypto
import PinVaultStore
import PinVaultSystem
import XCTest

@testable import PinVaultEngine

/// A `VaultEngine` over a store in a temporary directory, with weak KDF parameters,
/// for tests that drive the engine's steps one by one.
final class EngineFixture {
    let directory: String
    let store: VaultStore
    let engine: VaultEngine
    let caller = Caller(uid: 1000, pid: 4242, isAdmin: false)

    /// GetStats' `lockouts` so far.
    var lockouts: Int { engine.stats.snapshot(kdf: engine.kdfPool.snapshot).lockouts }
    /// GetStats' `kdfEvaluations` so far.
    var kdfEvaluations: Int { engine.stats.snapshot(kdf: engine.kdfPool.snapshot).kdfEvaluations }

    let pepper: Pepper
    /// Whether this fixture made the store (and so closes and removes it).
    private let ownsStore: Bool

    /// A new store and pepper in a temporary directory; `kdf` seals new records, `now`
    /// is the engine's wall clock (seconds). `monotonic` replaces the sessions' clock
    /// (and its sweeper thread: a test then sweeps with `endExpiredSessions()`).
    init(
        lockout: LockoutPolicy,
        kdf: KDFParameters = KDFParameters(opslimit: 1, memlimit: 8192),
        now: @escaping @Sendable () -> Int64 = WallClock.seconds,
        monotonic: (@Sendable () -> UInt64)? = nil,
        sessionMaxTtlSeconds: Int64 = 3600, sessionsPerUid: Int = 16,
        adjust: (inout VaultEngine.Settings) -> Void = { _ in }
    ) throws {
        var template = Array("/tmp/pinvault-engine-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        directory = String(cString: made)
        store = try VaultStore(path: directory + "/vault.sqlite")
        pepper = try Pepper.generate()
        ownsStore = true
        var settings = Self.settings(
            lockout: lockout, kdf: kdf, sessionMaxTtlSeconds: sessionMaxTtlSeconds, sessionsPerUid: sessionsPerUid
        )
        adjust(&settings)
        engine = try VaultEngine(
            settings: settings, store: store, pepper: pepper,
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, now: now, monotonic: monotonic
        )
    }

    /// A second engine over `other`'s store and pepper (as after a restart with another
    /// configuration); `other` keeps owning the store.
    init(
        sharing other: EngineFixture, lockout: LockoutPolicy, kdf: KDFParameters,
        now: @escaping @Sendable () -> Int64 = WallClock.seconds
    ) throws {
        directory = other.directory
        store = other.store
        pepper = other.pepper
        ownsStore = false
        engine = try VaultEngine(
            settings: Self.settings(lockout: lockout, kdf: kdf), store: store, pepper: pepper,
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, now: now
        )
    }

    static func settings(
        lockout: LockoutPolicy, kdf: KDFParameters, sessionMaxTtlSeconds: Int64 = 3600, sessionsPerUid: Int = 16
    ) -> VaultEngine.Settings {
        VaultEngine.Settings(
            policy: PinPolicy(), lockout: lockout, kdf: kdf,
            unregisterExpirySeconds: 300, maxCredentialsPerUser: 8, maxCredentialsPerUid: 64,
            kdfThreads: 1, kdfQueueMax: 8, kdfQueuePerUid: 8, storeQueueMax: 8, storeQueuePerUid: 8,
            sessionMaxTtlSeconds: sessionMaxTtlSeconds, sessionsPerUid: sessionsPerUid
        )
    }

    deinit {
        engine.shutdown()
        if ownsStore {
            store.close()
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// A request of `caller` whose answer nobody reads.
    var call: VaultEngine.Call {
        VaultEngine.Call(caller: caller, answer: { _ in }, isCancelled: { false })
    }

    /// `text` as a PIN.
    func secret(_ text: String) throws -> SecretBytes {
        try Array(text.utf8).withUnsafeBytes { try SecretBytes(copying: $0) }
    }

    /// Registers a credential for `user` (as `caller`, the fixture's own by default)
    /// through the engine and waits for it.
    func register(
        user: String, pin: String, label: String? = nil, purpose: KeyPurpose = .authenticate, as caller: Caller? = nil
    ) throws -> KeyID {
        guard case .success(.credential(let credential)) = submit(
            .register(user: user, pin: try secret(pin), label: label, purpose: purpose), as: caller
        )
        else {
            throw POSIXError(.EINVAL)
        }
        return credential.keyId
    }

    /// Submits `request` as `who` (the fixture's caller by default) and waits for the answer.
    func submit(
        _ request: VaultRequest, as who: Caller? = nil, isCancelled: @escaping @Sendable () -> Bool = { false }
    ) -> Result<VaultResult, VaultError> {
        let answer = Answered()
        engine.submit(request, from: who ?? caller, isCancelled: isCancelled) { answer.set($0) }
        return answer.wait()
    }

    /// Authenticate over a fixed challenge.
    func authenticate(user: String, pin: String) throws -> Result<VaultResult, VaultError> {
        submit(.authenticate(user: user, keyId: nil, pin: try secret(pin), challenge: Array("challenge".utf8), ownerUid: nil))
    }

    /// The stored record of `keyId`.
    func record(_ keyId: KeyID) throws -> CredentialRecord? {
        try store.read { try $0.credential(keyId: keyId) }
    }

    /// One answer handed over from a pool thread.
    private final class Answered: @unchecked Sendable {
        private let lock = ConditionLock()
        private var result: Result<VaultResult, VaultError>?

        func set(_ value: Result<VaultResult, VaultError>) {
            lock.withLock {
                result = value
                lock.broadcast()
            }
        }

        func wait() -> Result<VaultResult, VaultError> {
            lock.withLock {
                while true {
                    if let result { return result }
                    lock.wait()
                }
            }
        }
    }
}
