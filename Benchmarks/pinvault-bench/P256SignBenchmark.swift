import PinVaultCrypto
import PinVaultTestKit

/// SIGN_REQUEST with a P-256 key: PinVault's agent socket with an unlocked
/// `ecdsa-sha2-nistp256` ssh key, and `pinvault agent` (the per-user agent, which asks
/// pinvaultd for each signature) with the same key, against OpenSSH's `ssh-agent`
/// holding an ECDSA P-256 key of its own, the same loop as the Ed25519 comparison,
/// alternating rounds. The
/// signature itself costs both the same libcrypto ECDSA (tens of µs, not Ed25519's
/// ~20): what differs is everything around it.
enum P256SignBenchmark {
    static let user = "bench-p256-ssh@example.org"

    static func run(
        daemon: DaemonInstance, userAgent: UserAgentInstance, cores: Int, parameters: BenchParameters, report: Report
    ) throws {
        guard let daemonPid = daemon.pid else { throw BenchError("pinvaultd is not running") }
        let agent = try SSHAgentInstance(algorithm: .p256)
        let vault = try daemon.connect()
        let (keyId, publicKey) = try vault.call(VaultCalls.register(user: user, label: "ssh", purpose: "ssh", algorithm: "p256")) {
            (try VaultCalls.keyId(fromRegisterReply: $0), try VaultCalls.publicKey(fromRegisterReply: $0))
        }
        guard try vault.call(VaultCalls.unlock(user: user, keyId: keyId, ttlSeconds: 3600), { !VarlinkClient.isError($0) }) else {
            throw BenchError("Unlock of the P-256 ssh key failed")
        }

        var section = Report.Section("Signing with an unlocked P-256 key")
        section.add("As above, SIGN_REQUEST (13) of an ssh userauth request to PinVault's agent socket with an unlocked")
        section.add("`ssh` key registered with `algorithm: p256` (`ecdsa-sha2-nistp256`, ECDSA over SHA-256 by the")
        section.add("system's libcrypto, the key in its secure heap) and to OpenSSH's `ssh-agent` holding a key of")
        section.add("`ssh-keygen -t ecdsa -b 256 -N ''`, each answered by SIGN_RESPONSE (14), checked by type only; the same")
        section.add("requests to `pinvault agent`, the per-user agent, which passes each to pinvaultd (Varlink `AgentSign`).")
        section.add("\(parameters.roundTripRounds) rounds of \(SessionSignBenchmark.signCalls(parameters)) signatures, PinVault's agent socket, then the per-user agent, then")
        section.add("ssh-agent in each, after 50 uncounted calls each. Ratios are of medians, to ssh-agent's.")
        section.add()
        section.header(
            "placement", "PinVault's agent socket (min / median / max)", "pinvault agent (min / median / max)",
            "ssh-agent (min / median / max)", "agent socket ÷ ssh-agent", "pinvault agent ÷ ssh-agent")
        for placement in CPUPlacement.available(cores: cores) {
            let pids = [daemonPid, agent.pid, userAgent.pid]
            try placement.apply(to: pids, cores: cores)
            defer { try? CPUPlacement.scheduler.apply(to: pids, cores: cores) }
            let ours = try SSHAgentClient(path: daemon.agentSocketPath, timeoutSeconds: 120)
            let theirs = try agent.connect()
            let perUser = try userAgent.connect()
            let session = RandomBytes.make(count: 32)
            let ourSign = SSHAgentClient.signRequest(
                publicKey: publicKey, algorithm: .p256,
                data: SSHAgentClient.userauthRequest(publicKey: publicKey, algorithm: .p256, session: session))
            let theirSign = SSHAgentClient.signRequest(
                publicKey: agent.publicKey, algorithm: .p256,
                data: SSHAgentClient.userauthRequest(publicKey: agent.publicKey, algorithm: .p256, session: session))
            for _ in 0..<50 {
                try ours.roundTrip(ourSign, expecting: SSHAgentClient.signResponse)
                try perUser.roundTrip(ourSign, expecting: SSHAgentClient.signResponse)
                try theirs.roundTrip(theirSign, expecting: SSHAgentClient.signResponse)
            }
            let signs = SessionSignBenchmark.signCalls(parameters)
            var ourRates: [Double] = [], perUserRates: [Double] = [], theirRates: [Double] = []
            for _ in 0..<parameters.roundTripRounds {
                ourRates.append(Double(signs) / (try Monotonic.measure {
                    for _ in 0..<signs { try ours.roundTrip(ourSign, expecting: SSHAgentClient.signResponse) }
                }.seconds))
                perUserRates.append(Double(signs) / (try Monotonic.measure {
                    for _ in 0..<signs { try perUser.roundTrip(ourSign, expecting: SSHAgentClient.signResponse) }
                }.seconds))
                theirRates.append(Double(signs) / (try Monotonic.measure {
                    for _ in 0..<signs { try theirs.roundTrip(theirSign, expecting: SSHAgentClient.signResponse) }
                }.seconds))
            }
            let ourSummary = Summary(ourRates), perUserSummary = Summary(perUserRates), theirSummary = Summary(theirRates)
            let ratio = (ourSummary?.median ?? 0) / (theirSummary?.median ?? 1)
            let perUserRatio = (perUserSummary?.median ?? 0) / (theirSummary?.median ?? 1)
            // Judged as the Ed25519 comparison is: on one core and where the scheduler puts them.
            let judged = placement != .acrossCores
            if judged {
                report.goal("P-256 agent signatures (\(placement.name)): PinVault SIGN_REQUEST/s ÷ ssh-agent (ECDSA P-256)", ratio, atLeast: 10)
                report.goal("P-256 per-user agent signatures (\(placement.name)): pinvault agent SIGN_REQUEST/s ÷ ssh-agent (ECDSA P-256)",
                            perUserRatio, atLeast: 10)
            }
            section.row(placement.title, Format.summary(ourSummary, Format.rate), Format.summary(perUserSummary, Format.rate),
                        Format.summary(theirSummary, Format.rate),
                        judged ? "**\(Format.ratio(ratio))** (goal ≥ 10)" : Format.ratio(ratio),
                        judged ? "**\(Format.ratio(perUserRatio))** (goal ≥ 10)" : Format.ratio(perUserRatio))
        }
        report.add(section)
    }
}
