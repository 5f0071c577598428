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

    init(lockout: LockoutPolicy) throws {
        var template = Array("/tmp/pinvault-engine-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        directory = String(cString: made)
        store = try VaultStore(path: directory + "/vault.sqlite")
        engine = try VaultEngine(
            settings: VaultEngine.Settings(
                policy: PinPolicy(), lockout: lockout, kdf: KDFParameters(opslimit: 1, memlimit: 8192),
                unregisterExpirySeconds: 300, maxCredentialsPerUser: 8, maxCredentialsPerUid: 64,
                kdfThreads: 1, kdfQueueMax: 8, kdfQueuePerUid: 8, storeQueueMax: 8, storeQueuePerUid: 8
            ),
            store: store, pepper: try Pepper.generate(),
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
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
    func register(user: String, pin: String) throws -> KeyID {
        let answer = Answered()
        engine.submit(.register(user: user, pin: try secret(pin), label: nil), from: caller, isCancelled: { false }) {
            answer.set($0)
        }
        guard case .success(.credential(let credential)) = answer.wait() else {
            throw POSIXError(.EINVAL)
        }
        return credential.keyId
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
