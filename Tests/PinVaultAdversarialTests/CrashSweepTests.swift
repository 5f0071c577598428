import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// The crash sweep (`CrashSweep`, RELIABILITY.md): every crash point (a SIGKILL, then a
/// power cut) and every write fault of every PIN-checking request — Varlink's and the
/// security key's ClientPIN — under `make crash-sweep`
/// (`PINVAULT_CRASH_SWEEP=full`); a seeded sample of them in `make test`.
final class CrashSweepTests: XCTestCase {
    static let isFull = ProcessInfo.processInfo.environment["PINVAULT_CRASH_SWEEP"] == "full"
    /// Scenarios the short run samples, and points of each.
    static let sampledScenarios = 6, sampledPoints = 3

    func testEveryCrashPointAndFault_keepsTheCounter_andLosesNothing() throws {
        let started = Date()
        let seed = SeededGenerator.seed(from: "PINVAULT_CRASH_SWEEP_SEED", fallback: 34)
        var generator = SeededGenerator(seed: seed)
        let foreignUid: UInt32? = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
            ? ForeignUidClient.nobody : nil
        let sweep = try CrashSweep(foreignUid: foreignUid)
        var scenarios = CrashSweep.scenarios
        // PINVAULT_CRASH_SWEEP_REQUESTS=changePIN,getPinToken sweeps those requests alone.
        if let only = ProcessInfo.processInfo.environment["PINVAULT_CRASH_SWEEP_REQUESTS"], !only.isEmpty {
            let names = only.split(separator: ",").map(String.init)
            scenarios = scenarios.filter { names.contains($0.request.rawValue) }
            XCTAssertFalse(scenarios.isEmpty, "PINVAULT_CRASH_SWEEP_REQUESTS names no request: \(only)")
        }
        if !Self.isFull { scenarios = Array(scenarios.shuffled(using: &generator).prefix(Self.sampledScenarios)) }
        var events = 0
        for scenario in scenarios {
            let dry = try sweep.dryRun(scenario)
            events += dry.count
            var crashes = CrashSweep.crashPoints(dry), faults = CrashSweep.faultPoints(dry)
            if !Self.isFull {
                crashes = Array(crashes.shuffled(using: &generator).prefix(Self.sampledPoints))
                faults = Array(faults.shuffled(using: &generator).prefix(Self.sampledPoints))
            }
            for point in crashes {
                try sweep.crash(scenario, at: point, dryRun: dry, powerCut: false)
                try sweep.crash(scenario, at: point, dryRun: dry, powerCut: true)
            }
            for point in faults { try sweep.fault(scenario, at: point, dryRun: dry) }
        }
        let figures = sweep.figures
        let byRequest = figures.pointsByRequest.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        let replies = figures.faultReplies.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        let faults = (figures.faults[.enospc] ?? 0) + (figures.faults[.eio] ?? 0)
        print("crash sweep (\(Self.isFull ? "full" : "sampled, seed \(seed)")): \(scenarios.count) scenarios, \(events) events; "
            + "crash points by request: \(byRequest); \(faults) faults answered: \(replies); "
            + "\(foreignUid.map { "a credential of uid \($0) beside" } ?? "no other uid (not root)"); "
            + "\(String(format: "%.0f", Date().timeIntervalSince(started))) s")
        let line = "crash-sweep: \(figures.crashPoints) crash points (\(figures.crashPoints - figures.powerCuts) SIGKILLs, "
            + "\(figures.powerCuts) power cuts), \(figures.uncountedWrongPins) uncounted wrong PINs, "
            + "\(figures.lostCredentials) lost credentials; \(figures.faults[.enospc] ?? 0) ENOSPC and \(figures.faults[.eio] ?? 0) EIO faults, "
            + "\(figures.findings.count) findings"
        print(line)
        if let path = ProcessInfo.processInfo.environment["PINVAULT_CRASH_SWEEP_SUMMARY"], !path.isEmpty {
            try (line + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        }
        XCTAssert(figures.findings.isEmpty, figures.findings.prefix(40).joined(separator: "\n"))
        XCTAssertGreaterThan(figures.crashPoints, 0)
        if Self.isFull { XCTAssertGreaterThanOrEqual(figures.crashPoints, 200, "the sweep covers fewer points than it promises") }
    }
}
