import Glibc
import PinVaultCrypto
import PinVaultTestKit

/// Signatures with an unlocked key: SIGN_REQUEST over PinVault's agent socket and
/// through `pinvault agent` (the per-user agent, one more hop: its AgentSign to
/// pinvaultd) against the same request to OpenSSH's ssh-agent holding an Ed25519 key,
/// REQUEST_IDENTITIES on all three, and Varlink Sign; the same blocking-socket loop,
/// alternating rounds, on one core and across cores (`CPUPlacement`).
enum SessionSignBenchmark {
    static let user = "bench-ssh@example.org"

    static func run(
        daemon: DaemonInstance, agent: SSHAgentInstance, userAgent: UserAgentInstance, cores: Int, parameters: BenchParameters,
        report: Report
    ) throws {
        guard let daemonPid = daemon.pid else { throw BenchError("pinvaultd is not running") }
        let vault = try daemon.connect()
        // A key for each door: the agent signs with an ssh key only, Varlink Sign with
        // an authenticate one only (SECURITY.md, "Signature domains").
        var keys: [String: (keyId: String, publicKey: [UInt8])] = [:]
        for purpose in ["ssh", "authenticate"] {
            let key = try vault.call(VaultCalls.register(user: user, label: purpose, purpose: purpose)) {
                (try VaultCalls.keyId(fromRegisterReply: $0), try VaultCalls.publicKey(fromRegisterReply: $0))
            }
            let unlocked = try vault.call(VaultCalls.unlock(user: user, keyId: key.0, ttlSeconds: 3600)) { !VarlinkClient.isError($0) }
            guard unlocked else { throw BenchError("Unlock of the \(purpose) key failed") }
            keys[purpose] = key
        }
        guard let sshKey = keys["ssh"], let appKey = keys["authenticate"] else { throw BenchError("no keys") }

        var section = Report.Section("Signing with an unlocked key")
        section.add("After one `Unlock` (the shipped configuration: production Argon2id, `sessions.max_ttl_seconds` 3600),")
        section.add("the key signs without a PIN. One connection each, the same Swift loop as above: SIGN_REQUEST (13)")
        section.add("of an ssh userauth request (RFC 4252 §7, 148 bytes, which PinVault parses before it signs with its")
        section.add("`ssh` key) to PinVault's agent socket and to OpenSSH's `ssh-agent` holding an ed25519 key, each")
        section.add("answered by SIGN_RESPONSE (14), checked by type only; the same to `pinvault agent`, the per-user")
        section.add("agent, which asks pinvaultd for each signature (Varlink `AgentSign`, from its event loop) and lists from the `List` it keeps per connection;")
        section.add("REQUEST_IDENTITIES (11) to all three; and Varlink `Sign` of 32 bytes with an `authenticate` key (its")
        section.add("reply read to the NUL).")
        section.add("\(parameters.roundTripRounds) rounds of \(signCalls(parameters)) signatures and \(identityCalls(parameters)) identity requests each, PinVault then")
        section.add("ssh-agent in each round, after 50 uncounted calls each.")
        section.add()
        section.add("Judged on one core and where the scheduler puts the parties, as an ssh user runs them; pinned")
        section.add("across cores (client on CPU 0, servers on CPU 1) each signature pays two cross-CPU wake-ups on")
        section.add("top of its work, and that figure is shown, not judged (docs/PERFORMANCE.md).")
        for placement in CPUPlacement.available(cores: cores) {
            let pids = [daemonPid, agent.pid, userAgent.pid]
            try placement.apply(to: pids, cores: cores)
            defer { try? CPUPlacement.scheduler.apply(to: pids, cores: cores) }
            try measure(daemon: daemon, agent: agent, userAgent: userAgent, appKeyId: appKey.keyId, sshPublicKey: sshKey.publicKey, placement: placement,
                        parameters: parameters, report: report, section: &section)
        }
        report.add(section)
    }

    static func signCalls(_ parameters: BenchParameters) -> Int { parameters.quick ? 100 : 500 }
    static func identityCalls(_ parameters: BenchParameters) -> Int { parameters.roundTripCalls / 4 }

    private static func measure(
        daemon: DaemonInstance, agent: SSHAgentInstance, userAgent: UserAgentInstance, appKeyId: String, sshPublicKey: [UInt8],
        placement: CPUPlacement,
        parameters: BenchParameters, report: Report, section: inout Report.Section
    ) throws {
        let ours = try SSHAgentClient(path: daemon.agentSocketPath, timeoutSeconds: 120)
        let theirs = try agent.connect()
        let perUser = try userAgent.connect()
        let vault = try daemon.connect()
        let session = RandomBytes.make(count: 32)
        let ourSign = SSHAgentClient.signRequest(
            publicKey: sshPublicKey, data: SSHAgentClient.userauthRequest(publicKey: sshPublicKey, session: session)
        )
        let theirSign = SSHAgentClient.signRequest(
            publicKey: agent.publicKey, data: SSHAgentClient.userauthRequest(publicKey: agent.publicKey, session: session)
        )
        let varlinkSign = VaultCalls.sign(keyId: appKeyId, challenge: RandomBytes.make(count: 32))
        for _ in 0..<50 {
            try ours.roundTrip(ourSign, expecting: SSHAgentClient.signResponse)
            try perUser.roundTrip(ourSign, expecting: SSHAgentClient.signResponse)
            try theirs.roundTrip(theirSign, expecting: SSHAgentClient.signResponse)
            try ours.roundTrip()
            try perUser.roundTrip()
            try theirs.roundTrip()
            try vault.roundTrip(varlinkSign)
        }

        let signs = signCalls(parameters)
        let identities = identityCalls(parameters)
        var ourSigns: [Double] = [], theirSigns: [Double] = [], varlinkSigns: [Double] = []
        var ourIdentities: [Double] = [], theirIdentities: [Double] = []
        var perUserSigns: [Double] = [], perUserIdentities: [Double] = []
        for _ in 0..<parameters.roundTripRounds {
            ourSigns.append(Double(signs) / (try Monotonic.measure {
                for _ in 0..<signs { try ours.roundTrip(ourSign, expecting: SSHAgentClient.signResponse) }
            }.seconds))
            perUserSigns.append(Double(signs) / (try Monotonic.measure {
                for _ in 0..<signs { try perUser.roundTrip(ourSign, expecting: SSHAgentClient.signResponse) }
            }.seconds))
            theirSigns.append(Double(signs) / (try Monotonic.measure {
                for _ in 0..<signs { try theirs.roundTrip(theirSign, expecting: SSHAgentClient.signResponse) }
            }.seconds))
            varlinkSigns.append(Double(signs) / (try Monotonic.measure {
                for _ in 0..<signs { try vault.roundTrip(varlinkSign) }
            }.seconds))
            ourIdentities.append(Double(identities) / (try Monotonic.measure {
                for _ in 0..<identities { try ours.roundTrip() }
            }.seconds))
            perUserIdentities.append(Double(identities) / (try Monotonic.measure {
                for _ in 0..<identities { try perUser.roundTrip() }
            }.seconds))
            theirIdentities.append(Double(identities) / (try Monotonic.measure {
                for _ in 0..<identities { try theirs.roundTrip() }
            }.seconds))
        }

        let placed = placement.name
        let ourSignSummary = Summary(ourSigns), theirSignSummary = Summary(theirSigns), varlink = Summary(varlinkSigns)
        let ourList = Summary(ourIdentities), theirList = Summary(theirIdentities)
        let perUserSign = Summary(perUserSigns), perUserList = Summary(perUserIdentities)
        let perUserSignRatio = (perUserSign?.median ?? 0) / (theirSignSummary?.median ?? 1)
        let perUserListRatio = (perUserList?.median ?? 0) / (theirList?.median ?? 1)
        let signRatio = (ourSignSummary?.median ?? 0) / (theirSignSummary?.median ?? 1)
        let listRatio = (ourList?.median ?? 0) / (theirList?.median ?? 1)
        let varlinkRatio = (varlink?.median ?? 0) / (theirSignSummary?.median ?? 1)
        // Issue 14's goals, on one core and in the scheduler's placement.
        let judged = placement != .acrossCores
        if judged {
            report.goal("Agent signatures (\(placed)): PinVault SIGN_REQUEST/s ÷ ssh-agent SIGN_REQUEST/s", signRatio, atLeast: 10)
            report.goal("Agent identities (\(placed)): PinVault REQUEST_IDENTITIES/s ÷ ssh-agent's", listRatio, atLeast: 1.5)
            report.goal("Varlink Sign (\(placed)): Sign/s ÷ ssh-agent SIGN_REQUEST/s", varlinkRatio, atLeast: 10)
            report.goal("Per-user agent signatures (\(placed)): pinvault agent SIGN_REQUEST/s ÷ ssh-agent's", perUserSignRatio, atLeast: 10)
            report.goal("Per-user agent identities (\(placed)): pinvault agent REQUEST_IDENTITIES/s ÷ ssh-agent's", perUserListRatio, atLeast: 1.5)
        }
        func judgedRatio(_ value: Double, _ goal: String) -> String {
            judged ? "**\(Format.ratio(value))** (goal \(goal))" : Format.ratio(value)
        }

        section.add()
        section.add("**\(placement.title)**")
        section.add()
        section.header("figure", "PinVault (min / median / max)", "ssh-agent (min / median / max)", "ratio of medians")
        section.row("SIGN_REQUEST round trips", Format.summary(ourSignSummary, Format.rate), Format.summary(theirSignSummary, Format.rate),
                    judgedRatio(signRatio, "≥ 10"))
        section.row("REQUEST_IDENTITIES round trips", Format.summary(ourList, Format.rate), Format.summary(theirList, Format.rate),
                    judgedRatio(listRatio, "≥ 1.5"))
        section.row("Varlink Sign round trips", Format.summary(varlink, Format.rate), "", judgedRatio(varlinkRatio, "≥ 10"))
        section.row("SIGN_REQUEST round trips, pinvault agent", Format.summary(perUserSign, Format.rate),
                    Format.summary(theirSignSummary, Format.rate), judgedRatio(perUserSignRatio, "≥ 10"))
        section.row("REQUEST_IDENTITIES round trips, pinvault agent", Format.summary(perUserList, Format.rate),
                    Format.summary(theirList, Format.rate), judgedRatio(perUserListRatio, "≥ 1.5"))
        if let ourSignSummary, let theirSignSummary, let varlink {
            section.add()
            section.add("Median signature round trip: PinVault's agent \(Format.microseconds(1 / ourSignSummary.median)), "
                        + "pinvault agent \(Format.microseconds(1 / (perUserSign?.median ?? .infinity))), Varlink Sign "
                        + "\(Format.microseconds(1 / varlink.median)), ssh-agent \(Format.microseconds(1 / theirSignSummary.median)). "
                        + "Varlink Sign latency min / median / max: \(Format.microseconds(1 / varlink.max)) / "
                        + "\(Format.microseconds(1 / varlink.median)) / \(Format.microseconds(1 / varlink.min)) (per round).")
        }
    }
}
