import Foundation
import Glibc
import Logging
import PinVaultCore
import PinVaultCrypto
import PinVaultStore
import XCTest

@testable import PinVaultDaemon

/// A `VaultService` over a store in a temporary directory, with weak KDF parameters,
/// for tests that drive the service's steps one by one.
final class ServiceFixture {
    let directory: String
    let store: VaultStore
    let stats = ServiceStats()
    let service: VaultService
    let peer = Peer(pid: 4242, uid: 1000, gid: 1000, groups: [1000], isAdmin: false)
    private let kdfPool: WorkPool
    private let storeQueue: WorkPool

    init(lockout: LockoutPolicy) throws {
        var template = Array("/tmp/pinvault-service-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        directory = String(cString: made)
        store = try VaultStore(path: directory + "/vault.sqlite")
        kdfPool = try WorkPool(name: "t-kdf", threads: 1, queueMax: 8, perUidMax: 8)
        storeQueue = try WorkPool(name: "t-store", threads: 1, queueMax: 8, perUidMax: 8)
        service = VaultService(
            settings: VaultService.Settings(
                policy: PinPolicy(), lockout: lockout, kdf: KDFParameters(opslimit: 1, memlimit: 8192),
                unregisterExpirySeconds: 300, maxCredentialsPerUser: 8, maxCredentialsPerUid: 64
            ),
            store: store, pepper: try Pepper.generate(), kdfPool: kdfPool, storeQueue: storeQueue,
            stats: stats, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        )
    }

    deinit {
        kdfPool.shutdown()
        storeQueue.shutdown()
        store.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A call of `peer` whose answer nobody reads.
    var call: VaultService.Call {
        VaultService.Call(peer: peer, reply: { _ in }, isCancelled: { false })
    }

    /// `text` as a PIN.
    func secret(_ text: String) throws -> SecretBytes {
        try Array(text.utf8).withUnsafeBytes { try SecretBytes(copying: $0) }
    }

    /// Registers a credential for `user` through the service and waits for it.
    func register(user: String, pin: String) throws -> KeyID {
        let answer = Answered()
        service.handle(.register(user: user, pin: try secret(pin), label: nil), peer: peer, reply: { answer.set($0) }, isCancelled: { false })
        guard case .success(.credential(let record)) = answer.wait() else {
            throw POSIXError(.EINVAL)
        }
        return record.keyId
    }

    /// The stored record of `keyId`.
    func record(_ keyId: KeyID) throws -> CredentialRecord? {
        try store.read { try $0.credential(keyId: keyId) }
    }

    /// One answer handed over from a pool thread.
    private final class Answered: @unchecked Sendable {
        private let lock = ConditionLock()
        private var result: Result<VaultResult, ServiceError>?

        func set(_ value: Result<VaultResult, ServiceError>) {
            lock.withLock {
                result = value
                lock.broadcast()
            }
        }

        func wait() -> Result<VaultResult, ServiceError> {
            lock.withLock {
                while true {
                    if let result { return result }
                    lock.wait()
                }
            }
        }
    }
}
