import Foundation

/// One `make bench`: every benchmark in turn, then BENCHMARKS.md.
struct BenchmarkRun {
    let daemonPath: String
    let configPath: String
    let outputPath: String
    let parameters: BenchParameters
    let swiftVersion: String
    let commit: String

    func run() throws {
        let begin = Monotonic.now()
        let machine = MachineDescription()
        let loadBefore = MachineDescription.loadAverage()
        let kdf = try ConfiguredKDF(path: configPath, cores: machine.cores)
        let activator = try Executable.find("systemd-socket-activate")
        let report = Report()

        progress("starting pinvaultd (\(kdf.description))")
        let daemon = try DaemonInstance(daemonPath: daemonPath, configPath: configPath)
        try daemon.start()
        guard try daemon.connect().call(VaultCalls.checkPin(), { try VaultCalls.isValid(checkPinReply: $0) }) else {
            throw BenchError("the configured PIN policy refuses the benchmark PIN")
        }
        let idleMemory = try IdleMemory.measure(daemon, report: report)

        progress("cheap round trips (PinVault GetPolicy, ssh-agent REQUEST_IDENTITIES)")
        let agent = try SSHAgentInstance()
        try RoundTripBenchmark.run(daemon: daemon, agent: agent, cores: machine.cores, parameters: parameters, report: report)
        progress("signing with an unlocked key (PinVault's agents and Varlink Sign, ssh-agent SIGN_REQUEST)")
        let userAgent = try UserAgentInstance(
            pinvault: URL(fileURLWithPath: daemonPath).deletingLastPathComponent().appendingPathComponent("pinvault").path,
            daemonSocket: daemon.socketPath
        )
        try SessionSignBenchmark.run(
            daemon: daemon, agent: agent, userAgent: userAgent, cores: machine.cores, parameters: parameters, report: report
        )
        progress("P-256 signatures (PinVault's agents, ssh-agent holding an ECDSA P-256 key)")
        try P256SignBenchmark.run(daemon: daemon, userAgent: userAgent, cores: machine.cores, parameters: parameters, report: report)
        progress("PKCS#11 signatures (pinvault-pkcs11.so C_Sign, Varlink Sign, SoftHSM2 C_Sign)")
        try PKCS11SignBenchmark.run(daemon: daemon, parameters: parameters, report: report)

        progress("passkeys (CTAPHID: a sign-in with a fresh PIN ÷ raw Argon2id, GetAssertion with a token on one core)")
        try PasskeyBenchmark.run(daemon: daemon, kdf: kdf, cores: machine.cores, parameters: parameters, report: report)

        let clientCount = 2 * machine.cores
        progress("registering \(clientCount) credentials at production cost")
        var clients: [ParallelBenchmark.Client] = []
        for index in 0..<clientCount {
            let user = "bench-parallel-\(index)"
            clients.append(ParallelBenchmark.Client(user: user, keyId: try daemon.register(user: user)))
        }

        progress("KDF overhead (\(parameters.kdfPairs) pairs)")
        try KDFOverheadBenchmark.run(
            daemon: daemon, user: clients[0].user, keyId: clients[0].keyId, kdf: kdf,
            pairs: parameters.kdfPairs, report: report)
        progress("KDF overhead with a P-256 key (\(parameters.kdfPairs) pairs)")
        let p256User = "bench-p256"
        let p256Key = try daemon.connect().call(VaultCalls.register(user: p256User, algorithm: "p256")) {
            try VaultCalls.keyId(fromRegisterReply: $0)
        }
        try KDFOverheadBenchmark.run(
            daemon: daemon, user: p256User, keyId: p256Key, kdf: kdf, pairs: parameters.kdfPairs, report: report, keyName: "P-256")

        progress("parallel throughput (\(parameters.parallelRounds) rounds, \(clientCount) clients)")
        try ParallelBenchmark.run(
            daemon: daemon, clients: clients, cores: machine.cores, kdf: kdf, parameters: parameters,
            idleMemory: idleMemory, report: report)
        try daemon.stop()

        progress("filling stores of \(Format.count(parameters.smallStore)) and \(Format.count(parameters.largeStore)) credentials")
        let small = try ScaleBenchmark.prepare(credentials: parameters.smallStore, daemonPath: daemonPath, configPath: configPath)
        let large = try ScaleBenchmark.prepare(credentials: parameters.largeStore, daemonPath: daemonPath, configPath: configPath)
        progress("  filled the large store in \(Format.seconds(large.fill.seconds))")
        progress("scale (Authenticate, List)")
        try ScaleBenchmark.run(small: small, large: large, parameters: parameters, report: report)

        progress("cold start (\(parameters.coldStarts) × 4 starts)")
        try ColdStartBenchmark.run(small: small, large: large, activatorPath: activator, parameters: parameters, report: report)

        let elapsed = Monotonic.seconds(since: begin)
        let markdown = report.markdown(
            preamble: preamble(elapsed: elapsed),
            machine: machineSection(machine, loadBefore: loadBefore),
            parameters: parameterSection(kdf, clients: clientCount))
        try markdown.write(toFile: outputPath, atomically: true, encoding: .utf8)
        progress("wrote \(outputPath) (\(Format.seconds(elapsed)))")
        for goal in report.goals {
            progress("  \(goal.met ? "met    " : "MISSED ") \(goal.name): \(Format.ratio(goal.value)) (goal \(goal.goal))")
        }
    }

    private func preamble(elapsed: Double) -> [String] {
        var lines = [
            "# PinVault benchmarks",
            "",
            "Generated by `make bench\(parameters.quick ? " BENCH_QUICK=1" : "")` (Benchmarks/pinvault-bench) on "
                + ISO8601DateFormatter().string(from: Date()) + " at commit `\(commit)`, in \(Format.seconds(elapsed)).",
            "Do not edit: every run rewrites this file. Each figure is min / median / max over repeated runs;",
            "ratios are of medians. Compared measurements alternate (A, B, A, B…) within one run so that",
            "drift hits both sides.",
        ]
        if parameters.quick {
            lines += ["", "> **Quick mode**: a few iterations of each, to check the harness. Do not quote these figures."]
        }
        return lines
    }

    private func machineSection(_ machine: MachineDescription, loadBefore: String) -> Report.Section {
        var section = Report.Section("Machine")
        section.header("", "")
        section.row("CPU", machine.cpuModel)
        section.row("cores (online)", "\(machine.cores)")
        section.row("memory", machine.memoryTotal)
        section.row("kernel", machine.kernel)
        section.row("Swift", swiftVersion)
        section.row("libsodium", machine.libsodium)
        section.row("load average (1, 5, 15 min) before / after", "\(loadBefore) / \(MachineDescription.loadAverage())")
        return section
    }

    private func parameterSection(_ kdf: ConfiguredKDF, clients: Int) -> Report.Section {
        var section = Report.Section("Parameters")
        section.add("- Daemon: release `pinvaultd` (`swift build -c release`), `\(configPath)` unchanged but for")
        section.add("  `--socket`, `--ssh-agent-socket` and `--state-directory` in a fresh temporary directory; stderr (info-level logs and")
        section.add("  audit lines) to a file there.")
        section.add("- KDF: Argon2id v1.3, \(kdf.description), `kdf.max_parallel` resolved to \(kdf.maxParallel).")
        section.add("- Client: this benchmark, one blocking Unix-socket connection per thread, raw Varlink requests")
        section.add("  built once with PinVaultProtocol's writer; no JSON parsed on timed paths.")
        section.add("- Iterations: \(parameters.kdfPairs) KDF pairs; \(parameters.parallelRounds) parallel rounds of \(clients) clients × \(parameters.callsPerClient) calls;")
        section.add("  \(parameters.roundTripRounds) round-trip rounds of \(parameters.roundTripCalls) sequential and \(parameters.pipelinedCalls) pipelined calls;")
        section.add("  \(parameters.scaleAuthPairs) scale Authenticate pairs and \(parameters.listRounds) List rounds of \(parameters.listCalls); \(parameters.coldStarts) cold starts of each kind.")
        return section
    }

    private func progress(_ message: String) {
        FileHandle.standardOutput.write(Data(("pinvault-bench: " + message + "\n").utf8))
    }
}
