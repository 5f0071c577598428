import Foundation
import PinVaultClient
import PinVaultTestKit
import XCTest

/// A full KDF pool answers `Busy` at once, mapped to `.busy(retryAfter:)`.
final class BusyTests: ClientTestCase {
    /// One KDF at a time, one waiting, one per uid; real Argon2id costs so calls overlap.
    override func setUpWithError() throws {
        try startDaemon([
            "kdf": ["opslimit": "2", "memlimit_mib": "16", "max_parallel": "1", "queue_max": "1", "queue_per_uid": "1"],
            "lockout": ["throttle_after": "50", "max_attempts": "100"],
        ], removing: ["kdf": ["memlimit_kib"]])
    }

    func testAuthenticationsPastThePool_areBusy_withARetryHint() async throws {
        try await register("alice")
        let socketPath = daemon.socketPath
        let pin = goodPin
        // One client per call: calls on one client are FIFO and would never overlap.
        let clients = try (0..<6).map { _ in try PinVaultClient(socketPath: socketPath) }
        let errors = await withTaskGroup(of: PinVaultError?.self) { group in
            for client in clients {
                group.addTask {
                    await thrownError { try await client.authenticate(user: "alice", pin: PIN(pin), challenge: [1]) }
                }
            }
            return await group.reduce(into: [PinVaultError?]()) { $0.append($1) }
        }
        let busy = errors.compactMap { error -> Duration? in
            if error?.code == .busy { return error?.retryAfter }
            return nil
        }
        XCTAssertEqual(busy.count + errors.filter { $0 == nil }.count, errors.count, "\(errors)")
        XCTAssertGreaterThanOrEqual(busy.count, 1, "no call was refused")
        XCTAssertLessThan(busy.count, errors.count, "every call was refused")
        for retryAfter in busy {
            XCTAssertGreaterThan(retryAfter, Duration.zero)
        }
    }
}
