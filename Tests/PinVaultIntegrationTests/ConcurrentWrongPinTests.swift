import Foundation
import PinVaultTestKit
import XCTest

/// Wrong PINs checked beside the owner's right ones, on several KDF threads at once
/// (SECURITY.md, "What the lockout promises"). The third review found that a right PIN
/// wrote the cleared count over the row — erasing wrong PINs counted by other
/// connections while its own Argon2id ran — and told the owner only of those before
/// its own attempt. Now each wrong PIN answered WrongPin is, at the end, either
/// reported by exactly one success (`failedAttemptsCleared`) or still counted.
final class ConcurrentWrongPinTests: DaemonTestCase {
    private let wrongPin = "999999"

    /// Four KDF threads with real Argon2id costs, so that checks overlap; a lockout
    /// far away, so that every guess is checked.
    override func setUpWithError() throws {
        try startDaemon([
            "kdf": ["opslimit": "2", "memlimit_mib": "16", "max_parallel": "4", "queue_max": "64", "queue_per_uid": "32"],
            "lockout": ["throttle_after": "1000", "max_attempts": "1000"],
        ], removing: ["kdf": ["memlimit_kib"]])
    }

    /// What the calls answered, from their threads.
    private final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var wrongPins = 0
        private(set) var reported = 0
        private(set) var signIns = 0
        private(set) var others: [String] = []

        func add(_ reply: VarlinkResponse?) {
            lock.withLock {
                guard let reply else { return others.append("no answer") }
                switch reply.error {
                case nil:
                    signIns += 1
                    reported += reply.int("failedAttemptsCleared") ?? -1_000_000
                case "io.pinvault.Vault.WrongPin"?:
                    wrongPins += 1
                default:
                    others.append(reply.description)
                }
            }
        }
    }

    /// `owners` connections signing in `rounds` times each and `guessers` connections
    /// guessing `rounds` times each, all at once.
    private func race(owners: Int, guessers: Int, rounds: Int) throws -> Tally {
        let tally = Tally()
        let socket = daemon.socketPath
        let (pin, wrongPin) = (pin, wrongPin)
        let group = DispatchGroup()
        for index in 0..<(owners + guessers) {
            let attempt = index < owners ? pin : wrongPin
            DispatchQueue.global().async(group: group) {
                guard let client = try? VarlinkClient(socketPath: socket, timeoutSeconds: 60) else { return tally.add(nil) }
                for _ in 0..<rounds {
                    tally.add(try? client.authenticate(user: "alice", pin: attempt))
                }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 300), .success, "the calls hung")
        return tally
    }

    func testWrongPinsCheckedBesideSignIns_areEachReportedOnce_orStillCounted() throws {
        try client.register(user: "alice", pin: pin)
        let tally = try race(owners: 3, guessers: 3, rounds: 16)
        XCTAssertEqual(tally.others, [], "every call answered a signature or WrongPin")
        XCTAssertEqual(tally.signIns, 48)
        XCTAssertEqual(tally.wrongPins, 48)

        let counted = try XCTUnwrap(try client.list(user: "alice").first?.int("failedAttempts"))
        let last = try client.authenticate(user: "alice", pin: pin)
        XCTAssertSuccess(last)
        let lastReported = try XCTUnwrap(last.int("failedAttemptsCleared"))
        print("concurrent wrong PINs: \(tally.wrongPins) answered WrongPin beside \(tally.signIns) sign-ins;",
              "the sign-ins reported \(tally.reported), \(counted) still counted, the next sign-in reported \(lastReported)")
        XCTAssertEqual(lastReported, counted, "the next success reports what was still counted")
        XCTAssertEqual(tally.reported + lastReported, tally.wrongPins,
                       "each wrong PIN reported to the owner once: none erased, none told twice")
        XCTAssertEqual(try client.list(user: "alice").first?.int("failedAttempts"), 0)
    }
}
