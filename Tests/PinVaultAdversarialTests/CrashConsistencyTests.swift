import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// Crash consistency (DESIGN §3, §5): SIGKILL at random moments while several
/// clients register, change PINs, fail PINs, unregister and wipe; after each restart
/// on the same state no acknowledged credential is lost or half-written, each opens
/// with exactly one of its old and new PIN, no failure counter is below the failures
/// answered, and acknowledged pending unregistrations keep their expiry.
final class CrashConsistencyTests: XCTestCase {
    private static let clientCount = 4

    func testSIGKILL_atRandomMoments_losesNothing_andKeepsEveryInvariant() throws {
        let kills = Soak.scale(short: 20, long: 200)
        let daemon = try TestDaemon(overrides: [
            "lockout": ["throttle_after": "\(CrashClient.maxAttempts)", "max_attempts": "\(CrashClient.maxAttempts)"],
        ])
        try daemon.start()
        let failures = FailureLog()
        let clients = (0..<Self.clientCount).map { CrashClient(id: $0, failures: failures) }
        let socketPath = daemon.socketPath
        var survived = 0
        let started = Date()

        for round in 1...kills {
            let group = DispatchGroup()
            for client in clients {
                DispatchQueue.global().async(group: group) { client.run(socketPath: socketPath) }
            }
            usleep(UInt32.random(in: 5_000...120_000))
            try daemon.stop(signal: SIGKILL)
            guard group.wait(timeout: .now() + 30) == .success else {
                return XCTFail("a client still waited 30 s after the daemon was killed")
            }
            try daemon.start()
            let verifier = try daemon.connect()
            try reconcile(clients, verifier: verifier, failures: failures)
            if !failures.all.isEmpty {
                XCTFail("after kill \(round):\n" + failures.all.joined(separator: "\n") + "\n" + daemon.log.suffix(3000))
                break
            }
            survived += 1
        }
        let operations = clients.map(\.answered).reduce(0, +)
        print("crash consistency: \(survived) of \(kills) SIGKILLs survived, \(operations) operations answered, "
            + "\(String(format: "%.1f", Date().timeIntervalSince(started))) s")
        XCTAssertEqual(survived, kills)
        XCTAssertGreaterThan(operations, kills, "the clients hardly ran between kills")
        XCTAssertEqual(try daemon.stop(), 0, daemon.log.suffix(3000).description)
    }

    /// Lets every client check its models against List, and checks that List holds
    /// nothing no client registered (nor two credentials of one user).
    private func reconcile(_ clients: [CrashClient], verifier: VarlinkClient, failures: FailureLog) throws {
        var byUser: [String: [String: Any]] = [:]
        for credential in try verifier.list() {
            let user = credential["user"] as? String ?? ""
            if byUser[user] != nil { failures.note("two credentials of \(user)") }
            byUser[user] = credential
        }
        for client in clients {
            let mine = byUser.filter { $0.key.hasPrefix("c\(client.id)-") }
            try client.reconcile(listed: mine, client: verifier)
        }
        let known = Set(clients.flatMap { $0.models.map(\.user) })
        let unknown = Set(try verifier.list().compactMap { $0["user"] as? String }).subtracting(known)
        if !unknown.isEmpty { failures.note("credentials no client knows: \(unknown.sorted())") }
    }
}
