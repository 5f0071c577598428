import Foundation
import PinVaultTestKit

/// Authenticate throughput with 2 × cores concurrent clients against raw parallel
/// `crypto_pwhash` on one thread per core, alternating rounds; then the daemon's
/// memory beside `max_parallel × memlimit`.
enum ParallelBenchmark {
    /// Credentials the clients use, one per client (see `main`).
    struct Client: Sendable {
        let user: String
        let keyId: String
    }

    static func run(
        daemon: DaemonInstance, clients: [Client], cores: Int, kdf: ConfiguredKDF,
        parameters: BenchParameters, idleMemory: ProcessMemory, report: Report
    ) throws {
        let calls = clients.count * parameters.callsPerClient
        var daemonRates: [Double] = []
        var rawRates: [Double] = []
        for _ in 0..<parameters.parallelRounds {
            daemonRates.append(try daemonThroughput(socketPath: daemon.socketPath, clients: clients, calls: calls))
            rawRates.append(try RawArgon2id.throughput(threads: cores, calls: calls, kdf.parameters))
        }
        let memory = try daemon.memory()
        let daemonSummary = Summary(daemonRates)
        let rawSummary = Summary(rawRates)
        let ratio = (daemonSummary?.median ?? 0) / (rawSummary?.median ?? 1)
        report.goal("Parallel: Authenticate/s (\(clients.count) clients) ÷ raw crypto_pwhash/s (\(cores) threads)",
                    ratio, atLeast: 0.90)

        var section = Report.Section("Parallel throughput")
        section.add("\(clients.count) clients (2 × \(cores) cores), each on its own connection and thread with its own")
        section.add("credential, share \(calls) Authenticate calls; then \(cores) threads share \(calls) raw `crypto_pwhash`")
        section.add("calls in this process. Throughput = calls ÷ time from the first start to the last finish;")
        section.add("\(parameters.parallelRounds) rounds, daemon then raw in each. The daemon runs `kdf.max_parallel` = \(kdf.maxParallel).")
        section.add()
        section.header("figure", "min / median / max")
        section.row("Authenticate throughput", Format.summary(daemonSummary, Format.rateFine))
        section.row("raw crypto_pwhash throughput", Format.summary(rawSummary, Format.rateFine))
        section.row("**ratio of medians**", "**\(Format.ratio(ratio))** (goal ≥ 0.90)")
        report.add(section)

        let bound = kdf.maxParallel * Int(kdf.parameters.memlimit)
        var memorySection = Report.Section("Memory")
        memorySection.add("`VmRSS` / `VmHWM` of the daemon from `/proc/PID/status`.")
        memorySection.add()
        memorySection.header("figure", "value")
        memorySection.row("idle RSS (after start and one GetPolicy)", Format.mebibytes(idleMemory.residentBytes))
        memorySection.row("peak RSS (VmHWM) through the KDF and parallel tests", Format.mebibytes(memory.peakResidentBytes))
        memorySection.row("RSS after the parallel test", Format.mebibytes(memory.residentBytes))
        memorySection.row("max_parallel × memlimit", "\(kdf.maxParallel) × \(kdf.parameters.memlimit >> 20) MiB = \(Format.mebibytes(bound))")
        memorySection.row("peak − idle", Format.mebibytes(memory.peakResidentBytes - idleMemory.residentBytes))
        report.add(memorySection)
    }

    /// Authenticate calls per second with one thread and connection per client; the
    /// clock starts when every client has connected.
    private static func daemonThroughput(socketPath: String, clients: [Client], calls: Int) throws -> Double {
        let counter = SharedCounter(limit: calls)
        let barrier = StartBarrier(parties: clients.count)
        try ThreadGroup.run(count: clients.count) { index in
            let client = clients[index]
            let connection: VarlinkClient
            do {
                connection = try VarlinkClient(socketPath: socketPath, timeoutSeconds: 120)
            } catch {
                barrier.arrive()
                throw error
            }
            barrier.arrive()
            while counter.take() {
                try connection.roundTrip(VaultCalls.authenticate(user: client.user, keyId: client.keyId))
            }
        }
        return Double(calls) / Monotonic.seconds(since: barrier.startTime)
    }
}
