import Foundation
import Glibc
import PinVaultTestKit

/// Rounds of `CrashClient`s against one daemon, for the crash and power-loss tests:
/// in each round the clients connect, work until `cut` stops the daemon under them
/// (a SIGKILL, a power cut), the daemon restarts on what the cut left, and every
/// client reconciles its models with it. Stops at the first round that finds a fault.
final class CrashRounds {
    /// What the rounds did and found.
    struct Outcome {
        var rounds = 0
        /// Rounds after which every model reconciled.
        var survived = 0
        /// Operations answered.
        var answered = 0
        /// Calls sent whole whose reply the cut took, by method.
        var cutInFlight: [String: Int] = [:]
        /// Calls the cut stopped before they left whole.
        var cutUnsent = 0
        /// What the first faulty round found (empty when none was).
        var failures: [String] = []

        var cutInFlightTotal: Int { cutInFlight.values.reduce(0, +) }

        /// "12 (Authenticate 5, ChangePin 4, Register 3)"
        var cutInFlightSummary: String {
            let byMethod = cutInFlight.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            return "\(cutInFlightTotal) (" + byMethod.joined(separator: ", ") + ")"
        }
    }

    static let clientCount = 4

    private let daemon: TestDaemon
    private let failures: FailureLog
    private let clients: [CrashClient]

    init(daemon: TestDaemon) {
        self.daemon = daemon
        let failures = FailureLog()
        self.failures = failures
        clients = (0..<Self.clientCount).map { CrashClient(id: $0, failures: failures) }
    }

    /// Runs up to `rounds` rounds on the running daemon. `pause` gives how long the
    /// clients work before `cut` (which must leave the daemon stopped); `restart`
    /// starts it again on what the cut left. Throws when a client cannot connect.
    func run(
        rounds: Int,
        pause: () -> UInt32 = { UInt32.random(in: 5_000...120_000) },
        cut: () throws -> Void,
        restart: () throws -> Void
    ) throws -> Outcome {
        var outcome = Outcome()
        for round in 1...rounds {
            outcome.rounds = round
            // Every client connects before the cut can come: a refused connection is a fault.
            let connections = try clients.map { client in
                do {
                    return try VarlinkClient(socketPath: daemon.socketPath, timeoutSeconds: 20)
                } catch {
                    throw TestKitError("round \(round): client \(client.id) could not connect: \(error)")
                }
            }
            let group = DispatchGroup()
            for (client, connection) in zip(clients, connections) {
                // Handed over: only that client's thread uses it from here on.
                nonisolated(unsafe) let connection = connection
                DispatchQueue.global().async(group: group) { client.run(connection) }
            }
            usleep(pause())
            try cut()
            guard group.wait(timeout: .now() + 30) == .success else {
                throw TestKitError("round \(round): a client still waited 30 s after the cut")
            }
            try restart()
            try reconcile(verifier: try daemon.connect())
            if !failures.all.isEmpty {
                outcome.failures = failures.all
                break
            }
            outcome.survived += 1
        }
        outcome.answered = clients.map(\.answered).reduce(0, +)
        outcome.cutUnsent = clients.map(\.cutUnsent).reduce(0, +)
        for client in clients {
            outcome.cutInFlight.merge(client.cutInFlight, uniquingKeysWith: +)
        }
        return outcome
    }

    /// Lets every client check its models against List, and checks that List holds
    /// nothing no client registered (nor two credentials of one user).
    private func reconcile(verifier: VarlinkClient) throws {
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
