import ArgumentParser
import PinVaultClient

/// `pinvault stats`
struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show the daemon's counters (admins only).",
        discussion: "Counts since the daemon started. They add up every user's calls, so only admins may read them."
    )

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await global.run { console in
            let client = try global.connect()
            defer { client.close() }
            let stats = try await client.stats()
            console.show(.object([("counters", stats.json)])) {
                StandardStream.output.write(Table(headers: nil, rows: [
                    ["Requests answered:", String(stats.requests)],
                    ["Authentications succeeded:", String(stats.authenticationsSucceeded)],
                    ["Authentications failed:", String(stats.authenticationsFailed)],
                    ["Lockouts:", String(stats.lockouts)],
                    ["KDF jobs waiting:", String(stats.kdfQueueDepth)],
                    ["KDF jobs running:", String(stats.kdfRunning)],
                    ["KDF evaluations:", String(stats.kdfEvaluations)],
                    ["Connections open:", String(stats.activeConnections)],
                    ["Uptime:", "\(stats.uptimeSeconds) s"],
                ]).text)
            }
            return .success
        }
    }
}
