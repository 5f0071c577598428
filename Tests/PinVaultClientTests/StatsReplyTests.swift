import PinVaultClient
import PinVaultTestKit
import XCTest

/// `GetStats` replies as canned frames: every counter decoded, and a counter that an
/// older daemon does not send yet (`kdfEvaluations`) read as 0 instead of failing.
final class StatsReplyTests: XCTestCase {
    private static let olderCounters = #""requests":9,"authenticationsSucceeded":4,"authenticationsFailed":2,"lockouts":1,"#
        + #""kdfQueueDepth":3,"kdfRunning":2,"activeConnections":5,"uptimeSeconds":60"#

    private func stats(forCounters counters: String) async throws -> Stats {
        let server = try ScriptedVarlinkServer { _ in ScriptedVarlinkServer.reply(#"{"parameters":{"counters":{"# + counters + "}}}") }
        defer { server.stop() }
        let client = try PinVaultClient(socketPath: server.socketPath)
        return try await client.stats()
    }

    func testStats_decodesKdfEvaluations_withEveryOtherCounter() async throws {
        let stats = try await stats(forCounters: Self.olderCounters + #","kdfEvaluations":42"#)
        XCTAssertEqual(stats, Stats(
            requests: 9, authenticationsSucceeded: 4, authenticationsFailed: 2, lockouts: 1,
            kdfQueueDepth: 3, kdfRunning: 2, kdfEvaluations: 42, activeConnections: 5, uptimeSeconds: 60
        ))
    }

    func testStats_fromADaemonWithoutKdfEvaluations_readsItAsZero() async throws {
        let stats = try await stats(forCounters: Self.olderCounters)
        XCTAssertEqual(stats.kdfEvaluations, 0)
        XCTAssertEqual(stats.requests, 9)
    }
}
