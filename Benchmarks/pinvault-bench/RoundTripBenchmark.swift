import Foundation

/// GetPolicy on one PinVault connection against REQUEST_IDENTITIES on one ssh-agent
/// connection, by the same blocking-socket loop, alternating rounds; sequential round
/// trips, then pipelined batches.
enum RoundTripBenchmark {
    static func run(daemon: DaemonInstance, agent: SSHAgentInstance, parameters: BenchParameters, report: Report) throws {
        let vault = try daemon.connect()
        let ssh = try agent.connect()
        let pipelinedVault = pipelined(VaultCalls.getPolicy, count: parameters.pipelinedCalls)
        let pipelinedSSH = pipelined(SSHAgentConnection.request, count: parameters.pipelinedCalls)
        for _ in 0..<200 {
            try vault.roundTrip(VaultCalls.getPolicy)
            try ssh.roundTrip()
        }

        var vaultRates: [Double] = []
        var sshRates: [Double] = []
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
        report.goal("Cheap round trips: GetPolicy/s ÷ ssh-agent REQUEST_IDENTITIES/s", ratio, atLeast: 1.5)
        let pipelinedVaultSummary = Summary(vaultPipelined)
        let pipelinedSSHSummary = Summary(sshPipelined)
        let pipelinedRatio = (pipelinedVaultSummary?.median ?? 0) / (pipelinedSSHSummary?.median ?? 1)

        var section = Report.Section("Cheap round trips")
        section.add("One connection each, the same Swift loop: a prebuilt request written with one `send`, the")
        section.add("reply read with `recv` up to its end (NUL for Varlink, the 4-byte length for ssh-agent), no JSON")
        section.add("parsed. ssh-agent is a private `ssh-agent -D -a SOCKET` holding one ed25519 key")
        section.add("(`ssh-keygen -t ed25519 -N ''`, `ssh-add`); it answers REQUEST_IDENTITIES (11) with that key.")
        section.add("Sequential: \(calls) round trips per round. Pipelined: \(parameters.pipelinedCalls) requests written back to back by")
        section.add("one thread while this one reads the \(parameters.pipelinedCalls) replies. \(parameters.roundTripRounds) rounds, PinVault then ssh-agent in each,")
        section.add("after 200 uncounted round trips each.")
        section.add()
        section.header("figure", "PinVault GetPolicy (min / median / max)", "ssh-agent REQUEST_IDENTITIES (min / median / max)", "ratio of medians")
        section.row("sequential round trips", Format.summary(vaultSummary, Format.rate), Format.summary(sshSummary, Format.rate),
                    "**\(Format.ratio(ratio))** (goal ≥ 1.5)")
        section.row("pipelined calls", Format.summary(pipelinedVaultSummary, Format.rate),
                    Format.summary(pipelinedSSHSummary, Format.rate), Format.ratio(pipelinedRatio))
        if let vaultSummary, let sshSummary {
            section.add()
            section.add("Median round trip: PinVault \(Format.microseconds(1 / vaultSummary.median)), ssh-agent \(Format.microseconds(1 / sshSummary.median)).")
        }
        report.add(section)
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
