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

    /// `monotonic` replaces the sessions' clock (and its sweeper thread: a test then
    /// sweeps with `endExpiredSessions()`); `kdf` the parameters of new seals.
    init(
        lockout: LockoutPolicy, monotonic: (@Sendable () -> UInt64)? = nil,
        sessionMaxTtlSeconds: Int64 = 3600, sessionsPerUid: Int = 16,
        kdf: KDFParameters = KDFParameters(opslimit: 1, memlimit: 8192)
    ) throws {
        var template = Array("/tmp/pinvault-engine-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        directory = String(cString: made)
        store = try VaultStore(path: directory + "/vault.sqlite")
        engine = try VaultEngine(
            settings: VaultEngine.Settings(
                policy: PinPolicy(), lockout: lockout, kdf: kdf,
                unregisterExpirySeconds: 300, maxCredentialsPerUser: 8, maxCredentialsPerUid: 64,
                kdfThreads: 1, kdfQueueMax: 8, kdfQueuePerUid: 8, storeQueueMax: 8, storeQueuePerUid: 8,
                sessionMaxTtlSeconds: sessionMaxTtlSeconds, sessionsPerUid: sessionsPerUid
            ),
            store: store, pepper: try Pepper.generate(),
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() },
            monotonic: monotonic
        )
    }

    deinit {
        engine.shutdown()
        store.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A request of `caller` whose answer nobody reads.
    var call: VaultEngine.Call {
        VaultEngine.Call(caller: caller, answer: { _ in }, isCancelled: { false })
    }

    /// `text` as a PIN.
    func secret(_ text: String) throws -> SecretBytes {
        try Array(text.utf8).withUnsafeBytes { try SecretBytes(copying: $0) }
    }

    /// Registers a credential for `user` through the engine and waits for it.
    func register(user: String, pin: String, label: String? = nil) throws -> KeyID {
        guard case .success(.credential(let credential)) = submit(.register(user: user, pin: try secret(pin), label: label))
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
