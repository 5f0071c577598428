import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// Crash consistency (SECURITY.md, "A crash or power loss"): SIGKILL at random moments while several
/// clients register, change PINs, fail PINs, unregister and wipe; after each restart
/// on the same state no acknowledged credential is lost or half-written, each opens
/// with exactly one of its old and new PIN, every failure counter is exactly what the
/// answered calls and the one call in flight allow (never lower, never higher), and
/// acknowledged pending unregistrations keep their expiry. (PowerLossTests runs the
/// same rounds with every unsynced write lost as well.)
final class CrashConsistencyTests: XCTestCase {
    func testSIGKILL_atRandomMoments_losesNothing_andKeepsEveryInvariant() throws {
        let kills = Soak.scale(short: 20, long: 200)
        let daemon = try TestDaemon(overrides: [
            "lockout": ["throttle_after": "\(CrashClient.maxAttempts)", "max_attempts": "\(CrashClient.maxAttempts)"],
        ])
        try daemon.start()
        let started = Date()
        let outcome = try CrashRounds(daemon: daemon).run(
            rounds: kills,
            cut: { try daemon.stop(signal: SIGKILL) },
            restart: { try daemon.start() }
        )
        print("crash consistency: \(outcome.survived) of \(kills) SIGKILLs survived, \(outcome.answered) operations answered, "
            + "calls cut in flight: \(outcome.cutInFlightSummary), \(outcome.cutUnsent) cut unsent, "
            + "\(String(format: "%.1f", Date().timeIntervalSince(started))) s")
        XCTAssert(outcome.failures.isEmpty, "after kill \(outcome.rounds):\n" + outcome.failures.joined(separator: "\n") + "\n" + daemon.log.suffix(3000))
        XCTAssertEqual(outcome.survived, kills)
        XCTAssertGreaterThan(outcome.answered, kills, "the clients hardly ran between kills")
        XCTAssertGreaterThan(outcome.cutInFlightTotal, 0, "no kill cut a call in flight: the test proved nothing about them")
        XCTAssertEqual(try daemon.stop(), 0, daemon.log.suffix(3000).description)
    }
}
