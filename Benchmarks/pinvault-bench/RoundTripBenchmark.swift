import Foundation
import PinVaultTestKit

/// GetPolicy on one PinVault connection against REQUEST_IDENTITIES on one ssh-agent
/// connection, by the same blocking-socket loop, alternating rounds; sequential round
/// trips, then pipelined batches; on one core, across cores, and where the scheduler
/// puts them (`CPUPlacement`).
enum RoundTripBenchmark {
    static func run(
        daemon: DaemonInstance, agent: SSHAgentInstance, cores: Int, parameters: BenchParameters, report: Report
    ) throws {
        guard let daemonPid = daemon.pid else { throw BenchError("pinvaultd is not running") }
        let replyBytes = try daemon.connect().call(VaultCalls.getPolicy) { $0.count + 1 }
        let floor = try NullPeerInstance(replyBytes: replyBytes)
        var section = Report.Section("Cheap round trips")
        section.add("One connection each, the same Swift loop: a prebuilt request written with one `send`, the")
        section.add("reply read with `recv` up to its end (NUL for Varlink, the 4-byte length for ssh-agent), no JSON")
        section.add("parsed. ssh-agent is a private `ssh-agent -D -a SOCKET` holding one ed25519 key")
        section.add("(`ssh-keygen -t ed25519 -N ''`, `ssh-add`); it answers REQUEST_IDENTITIES (11) with that key.")
        section.add("Sequential: \(parameters.roundTripCalls) round trips per round. Pipelined: \(parameters.pipelinedCalls) requests written back to back by")
        section.add("one thread while this one reads the \(parameters.pipelinedCalls) replies. \(parameters.roundTripRounds) rounds, PinVault then ssh-agent in each,")
        section.add("after 200 uncounted round trips each.")
        section.add()
        section.add("Measured in three placements (`taskset --all-tasks`). On one core, the client's blocking `recv`")
        section.add("hands the CPU straight to the server and back: the figure is the software path itself. Across")
        section.add("cores (client on CPU 0, every server thread on CPU 1), each request and reply wakes a thread on")
        section.add("the other CPU and pays this virtual machine's cross-CPU wake-up, which dwarfs either server's own")
        section.add("work. Left to the scheduler, a server is sometimes woken on its client's CPU, so that figure mixes")
        section.add("the two kinds of trip in proportions the scheduler picks: it is shown, not judged here.")
        section.add("docs/PERFORMANCE.md explains the figures with their profiles.")
        section.add()
        section.add("The floor: a null peer (this benchmark as `null-peer`, its own process, placed like the")
        section.add("servers) that answers each request with \(replyBytes) bytes, GetPolicy's reply size, from a")
        section.add("`poll`/`read`/`send` loop. A server's round trip minus the floor is what the server adds;")
        section.add("the last row compares those.")
        for placement in CPUPlacement.available(cores: cores) {
            let pids = [daemonPid, agent.pid, floor.pid]
            try placement.apply(to: pids, cores: cores)
            defer { try? CPUPlacement.scheduler.apply(to: pids, cores: cores) }
            try measure(daemon: daemon, agent: agent, floor: floor, placement: placement, parameters: parameters,
                        report: report, section: &section)
        }
        report.add(section)
    }

    private static func measure(
        daemon: DaemonInstance, agent: SSHAgentInstance, floor: NullPeerInstance, placement: CPUPlacement,
        parameters: BenchParameters,
        report: Report, section: inout Report.Section
    ) throws {
        let vault = try daemon.connect()
        let ssh = try agent.connect()
        let nullPeer = try floor.connect()
        let pipelinedVault = pipelined(VaultCalls.getPolicy, count: parameters.pipelinedCalls)
        let pipelinedSSH = pipelined(SSHAgentClient.identitiesRequest, count: parameters.pipelinedCalls)
        for _ in 0..<200 {
            try vault.roundTrip(VaultCalls.getPolicy)
            try ssh.roundTrip()
            try nullPeer.roundTrip(VaultCalls.getPolicy)
        }

        var vaultRates: [Double] = []
        var sshRates: [Double] = []
        var floorRates: [Double] = []
        var vaultPipelined: [Double] = []
        var sshPipelined: [Double] = []
        let calls = parameters.roundTripCalls
        for _ in 0..<parameters.roundTripRounds {
            vaultRates.append(Double(calls) / (try Monotonic.measure {
                for _ in 0..<calls { try vault.roundTrip(VaultCalls.getPolicy) }
            }.seconds))
            sshRates.append(Double(calls) / (try Monotonic.measure {
                for _ in 0..<calls { try ssh.roundTrip() }
            }.seconds))
            floorRates.append(Double(calls) / (try Monotonic.measure {
                for _ in 0..<calls { try nullPeer.roundTrip(VaultCalls.getPolicy) }
            }.seconds))
            vaultPipelined.append(try rate(sending: pipelinedVault, fd: vault.fd, count: parameters.pipelinedCalls) {
                try vault.receiveSuccess()
            })
            sshPipelined.append(try rate(sending: pipelinedSSH, fd: ssh.fd, count: parameters.pipelinedCalls) {
                try ssh.receiveAnswer()
            })
        }

        let vaultSummary = Summary(vaultRates)
        let sshSummary = Summary(sshRates)
        let ratio = (vaultSummary?.median ?? 0) / (sshSummary?.median ?? 1)
        // Issue 16: on one core the software path alone, ≥ 1.5 × ssh-agent; across cores,
        // where both pay the same wake-ups, at least ssh-agent's rate and ≤ 3 µs above the floor.
        let ratioGoal: Double? = switch placement {
        case .oneCore: 1.5
        case .acrossCores: 1.0
        case .scheduler: nil
        }
        if let ratioGoal {
            report.goal("Cheap round trips (\(placement.name)): GetPolicy/s ÷ ssh-agent REQUEST_IDENTITIES/s", ratio, atLeast: ratioGoal)
        }
        let pipelinedVaultSummary = Summary(vaultPipelined)
        let pipelinedSSHSummary = Summary(sshPipelined)
        let pipelinedRatio = (pipelinedVaultSummary?.median ?? 0) / (pipelinedSSHSummary?.median ?? 1)
        // Issue 25: pipelined on one core, where the loop pays per wakeup what ssh-agent
        // pays per read (every whole frame answered, the replies written together).
        let pipelinedGoal: Double? = placement == .oneCore ? 1.0 : nil
        if let pipelinedGoal {
            report.goal("Pipelined calls (\(placement.name)): GetPolicy/s ÷ ssh-agent REQUEST_IDENTITIES/s", pipelinedRatio,
                        atLeast: pipelinedGoal)
        }

        section.add()
        section.add("**\(placement.title)**")
        section.add()
        section.header("figure", "PinVault GetPolicy (min / median / max)", "ssh-agent REQUEST_IDENTITIES (min / median / max)", "ratio of medians")
        section.row("sequential round trips", Format.summary(vaultSummary, Format.rate), Format.summary(sshSummary, Format.rate),
                    ratioGoal.map { "**\(Format.ratio(ratio))** (goal ≥ \($0))" } ?? Format.ratio(ratio))
        section.row("pipelined calls", Format.summary(pipelinedVaultSummary, Format.rate),
                    Format.summary(pipelinedSSHSummary, Format.rate),
                    pipelinedGoal.map { "**\(Format.ratio(pipelinedRatio))** (goal ≥ \($0))" } ?? Format.ratio(pipelinedRatio))
        let floorSummary = Summary(floorRates)
        section.row("floor: null peer round trips", Format.summary(floorSummary, Format.rate), "", "")
        if let vaultSummary, let sshSummary, let floorSummary {
            let vaultTrip = 1 / vaultSummary.median
            let sshTrip = 1 / sshSummary.median
            let floorTrip = 1 / floorSummary.median
            if placement == .acrossCores {
                report.goal("Cheap round trips (across cores): GetPolicy round trip − null peer's, in µs", (vaultTrip - floorTrip) * 1e6, atMost: 3)
            }
            section.add()
            section.add("Median round trip: PinVault \(Format.microseconds(vaultTrip)), ssh-agent \(Format.microseconds(sshTrip)), "
                        + "null peer \(Format.microseconds(floorTrip)). Above the floor: PinVault adds "
                        + "\(Format.microseconds(vaultTrip - floorTrip)), ssh-agent \(Format.microseconds(sshTrip - floorTrip)) "
                        + "(ssh-agent's ÷ PinVault's: \(Format.ratio((sshTrip - floorTrip) / max(vaultTrip - floorTrip, 1e-9)))).")
        }
    }

    /// `count` copies of `request`, back to back.
    private static func pipelined(_ request: [UInt8], count: Int) -> [UInt8] {
        var batch: [UInt8] = []
        batch.reserveCapacity(request.count * count)
        for _ in 0..<count { batch += request }
        return batch
    }

    /// Calls per second: a writer thread sends `batch` on `fd` while `receive` runs
    /// `count` times here; from the first write to the last reply.
    private static func rate(sending batch: [UInt8], fd: Int32, count: Int, receive: () throws -> Void) throws -> Double {
        let start = Monotonic.now()
        let writer = BatchWriter(fd: fd, batch: batch)
        writer.start()
        for _ in 0..<count { try receive() }
        let seconds = Monotonic.seconds(since: start)
        try writer.join()
        return Double(count) / seconds
    }
}
