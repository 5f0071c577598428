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
        /// Refused before the PIN, uncounted: an unregistration was pending.
        private(set) var pending = 0
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
                case "io.pinvault.Vault.UnregistrationPending"?:
                    pending += 1
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
        XCTAssertEqual(tally.pending, 0)
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

    /// Every PIN call's success follows the same rule: Unlock (opening a session, then
    /// extending it), ChangePin there and back, BeginUnregister (then aborted) and
    /// Authenticate, one after the other on one connection, beside three guessers.
    func testWrongPinsBesideEveryKindOfSuccess_areEachReportedOnce_orStillCounted() throws {
        let keyId = try XCTUnwrap(try client.register(user: "alice", pin: pin).string("keyId"))
        let guessing = DispatchGroup()
        let guesses = Tally()
        let socket = daemon.socketPath
        let wrongPin = wrongPin
        for _ in 0..<3 {
            DispatchQueue.global().async(group: guessing) {
                guard let guesser = try? VarlinkClient(socketPath: socket, timeoutSeconds: 60) else { return guesses.add(nil) }
                for _ in 0..<24 { guesses.add(try? guesser.authenticate(user: "alice", pin: wrongPin)) }
            }
        }
        var reported = 0
        for _ in 0..<4 {
            for (method, parameters) in [
                ("Unlock", ["user": "alice", "pin": pin, "ttlSeconds": 60] as [String: Any]),
                ("Unlock", ["user": "alice", "pin": pin, "ttlSeconds": 60]),
                ("ChangePin", ["user": "alice", "currentPin": pin, "newPin": otherPin]),
                ("ChangePin", ["user": "alice", "currentPin": otherPin, "newPin": pin]),
                ("Authenticate", ["user": "alice", "pin": pin, "challenge": Data("c".utf8).base64EncodedString()]),
            ] {
                reported += try XCTUnwrap(try client.succeeding(method, parameters).int("failedAttemptsCleared"))
            }
            let begun = try client.succeeding("BeginUnregister", ["user": "alice", "pin": pin])
            reported += try XCTUnwrap(begun.int("failedAttemptsCleared"))
            _ = try client.succeeding("AbortUnregister", ["keyId": keyId, "token": begun.string("token") ?? ""])
        }
        XCTAssertEqual(guessing.wait(timeout: .now() + 300), .success, "the guesses hung")
        XCTAssertEqual(guesses.others, [])
        XCTAssertEqual(guesses.wrongPins + guesses.pending, 72, "refused uncounted while the unregistration was pending")
        let last = try client.authenticate(user: "alice", pin: pin)
        let lastReported = try XCTUnwrap(last.int("failedAttemptsCleared"), last.description)
        print("wrong PINs beside every kind of success: \(guesses.wrongPins) answered WrongPin;",
              "the 24 successes reported \(reported), the next sign-in \(lastReported)")
        XCTAssertEqual(reported + lastReported, guesses.wrongPins, "each wrong PIN reported to the owner once")
    }
}
