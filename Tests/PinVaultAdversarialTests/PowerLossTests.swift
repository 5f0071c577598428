import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// Power loss (SECURITY.md, "A crash or power loss"): a SIGKILL keeps the
/// page cache, a power cut does not. Here every write the daemon had not made durable
/// with fsync/fdatasync is lost at each cut, and every name its directory had not
/// synced is undone (`PowerCut`, `Tests/PowerCut`). The crash rounds' model must still
/// hold: nothing acknowledged lost, no failure counter rolled back (nor beyond what was
/// sent), every credential opens with exactly one of its PINs.
final class PowerLossTests: XCTestCase {
    private static let lockout = [
        "lockout": ["throttle_after": "\(CrashClient.maxAttempts)", "max_attempts": "\(CrashClient.maxAttempts)"],
    ]

    func testPowerCut_atRandomMoments_losesNothingAcknowledged_andKeepsEveryInvariant() throws {
        let cuts = Soak.scale(short: 20, long: 200)
        let power = try PowerCut()
        let daemon = try TestDaemon(overrides: Self.lockout)
        // The first start runs under the shim too: the pepper and the database are born under it.
        try daemon.start(environment: power.environment(for: daemon))
        let started = Date()
        var fileSyncs = 0, directorySyncs = 0, cutsThatLostWrites = 0
        let outcome = try CrashRounds(daemon: daemon).run(
            rounds: cuts,
            cut: {
                let counters = try power.counters()
                fileSyncs += counters["file-syncs"] ?? 0
                directorySyncs += counters["directory-syncs"] ?? 0
                // The -shm is a cache SQLite rebuilds; it is never synced, so it always goes.
                let lost = try power.cut(daemon).filter { $0.changed && !$0.name.hasSuffix("-shm") }
                if !lost.isEmpty { cutsThatLostWrites += 1 }
            },
            restart: { try daemon.start(environment: power.environment(for: daemon)) }
        )
        print("power loss: \(outcome.survived) of \(cuts) power cuts survived, \(outcome.answered) operations answered, "
            + "calls cut in flight: \(outcome.cutInFlightSummary), \(outcome.cutUnsent) cut unsent; "
            + "the shim modelled \(fileSyncs) file syncs and \(directorySyncs) directory syncs; "
            + "\(cutsThatLostWrites) cuts rolled back unsynced writes of the database, "
            + "\(String(format: "%.1f", Date().timeIntervalSince(started))) s")
        XCTAssert(outcome.failures.isEmpty, "after cut \(outcome.rounds):\n" + outcome.failures.joined(separator: "\n") + "\n" + daemon.log.suffix(3000))
        XCTAssertEqual(outcome.survived, cuts)
        XCTAssertGreaterThan(outcome.answered, cuts, "the clients hardly ran between cuts")
        XCTAssertGreaterThan(outcome.cutInFlightTotal, 0, "no cut came with a call in flight: the test proved nothing about them")
        XCTAssertGreaterThan(fileSyncs, cuts, "the shim saw too few file syncs: was it loaded?")
        XCTAssertGreaterThan(directorySyncs, 0, "the shim saw no directory sync: was it loaded?")
        XCTAssertGreaterThan(cutsThatLostWrites, 0, "no cut came while a database write awaited its sync: the cuts lost nothing")
        XCTAssertEqual(try daemon.stop(), 0, daemon.log.suffix(3000).description)
    }

    /// The harness bites: a daemon whose fsyncs and fdatasyncs on files do not reach the
    /// disk (as with `synchronous=OFF`) loses acknowledged credentials, and the rounds say so.
    func testPowerCut_whenFileSyncsDoNotReachTheDisk_findsAcknowledgedWorkLost() throws {
        let found = try lossFound(skipping: .fileSyncs)
        XCTAssert(found.contains { $0.contains("lost (an acknowledged credential is gone)") }, found.joined(separator: "\n"))
    }

    /// The harness bites on names too: with directory syncs ignored, the WAL that SQLite
    /// created and synced is not in the directory after the cut, nor what it held.
    func testPowerCut_whenDirectorySyncsDoNotReachTheDisk_findsAcknowledgedWorkLost() throws {
        let found = try lossFound(skipping: .directorySyncs)
        XCTAssert(found.contains { $0.contains("lost (an acknowledged credential is gone)") }, found.joined(separator: "\n"))
    }

    /// Runs up to five rounds of 300 ms with `skip`; returns what the first faulty one found.
    private func lossFound(skipping skip: PowerCut.Skip) throws -> [String] {
        let power = try PowerCut(skip: skip)
        let daemon = try TestDaemon(overrides: Self.lockout)
        // A first start without the shim makes the pepper and the database durable: with
        // file syncs skipped the shim would otherwise lose the pepper itself.
        try daemon.start()
        XCTAssertEqual(try daemon.stop(), 0)
        try daemon.start(environment: power.environment(for: daemon))
        let outcome = try CrashRounds(daemon: daemon).run(
            rounds: 5,
            pause: { 300_000 },
            cut: { try power.cut(daemon) },
            restart: { try daemon.start(environment: power.environment(for: daemon)) }
        )
        print("power loss with \(skip.rawValue) skipped: found after cut \(outcome.rounds) of 5: "
            + (outcome.failures.first ?? "nothing") + " (\(outcome.failures.count) findings)")
        XCTAssertFalse(outcome.failures.isEmpty, "five power cuts with every \(skip.rawValue) ignored lost nothing: the harness does not bite")
        try daemon.stop()
        return outcome.failures
    }

    /// The shim itself, on a script whose outcome is known: a synced file keeps its
    /// synced bytes only; a file named by a directory sync but never synced is empty; a
    /// synced file whose name was never synced is gone; an unsynced unlink is undone; a
    /// synced truncation stays.
    func testPowerCutShim_keepsExactlyWhatWasSynced() throws {
        let power = try PowerCut()
        let state = try TemporaryDirectory()
        let directory = URL(fileURLWithPath: state.path).resolvingSymlinksInPath().path
        try "old".write(toFile: directory + "/truncated", atomically: false, encoding: .utf8)
        try "revived".write(toFile: directory + "/unlinked", atomically: false, encoding: .utf8)
        let script = """
            import os
            d = "\(directory)"
            def put(name, data, sync):
                fd = os.open(d + "/" + name, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
                os.write(fd, data)
                if sync: os.fsync(fd)
                os.close(fd)
            put("synced", b"durable", True)
            put("unsynced", b"lost", False)
            fd = os.open(d, os.O_RDONLY); os.fdatasync(fd); os.close(fd)
            put("synced", b"+lost", False)
            put("unnamed", b"synced, but its name never was", True)
            os.unlink(d + "/unlinked")
            fd = os.open(d + "/truncated", os.O_WRONLY | os.O_TRUNC); os.fsync(fd); os.close(fd)
            os.kill(os.getpid(), 9)
            """
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = power.library
        environment["POWERCUT_DIRECTORY"] = directory
        environment["POWERCUT_SHADOW"] = power.shadow
        environment["POWERCUT_SKIP"] = PowerCut.Skip.nothing.rawValue
        let run = try Subprocess.run("/usr/bin/python3", ["-c", script], environment: environment)
        XCTAssertEqual(run.status, SIGKILL, "the script should end by SIGKILL:\n\(run)")
        XCTAssertEqual(run.standardError.contains("powercut:"), false, run.standardError)
        XCTAssertEqual(try power.counters()["file-syncs"], 3)
        let restore = try Subprocess.run(power.restoreTool, [directory, power.shadow])
        XCTAssertEqual(restore.status, 0, "\(restore)")
        let left = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        XCTAssertEqual(left, ["synced", "truncated", "unlinked", "unsynced"])
        XCTAssertEqual(try String(contentsOfFile: directory + "/synced", encoding: .utf8), "durable")
        XCTAssertEqual(try String(contentsOfFile: directory + "/unsynced", encoding: .utf8), "")
        XCTAssertEqual(try String(contentsOfFile: directory + "/unlinked", encoding: .utf8), "revived")
        XCTAssertEqual(try String(contentsOfFile: directory + "/truncated", encoding: .utf8), "")
    }
}
