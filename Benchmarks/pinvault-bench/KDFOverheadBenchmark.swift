/// Authenticate over the socket against one raw `crypto_pwhash` at the same parameters,
/// alternating (daemon, raw, daemon, raw…) so drift hits both.
enum KDFOverheadBenchmark {
    /// `keyName`: what kind of key signs (nil: the default, Ed25519), named in the goal
    /// and the section.
    static func run(
        daemon: DaemonInstance, user: String, keyId: String, kdf: ConfiguredKDF, pairs: Int, report: Report, keyName: String? = nil
    ) throws {
        let connection = try daemon.connect()
        // One of each first, not counted: first-touch page faults on both sides.
        try connection.roundTrip(VaultCalls.authenticate(user: user, keyId: keyId))
        _ = try RawArgon2id.timeOne(kdf.parameters)

        var authenticate: [Double] = []
        var raw: [Double] = []
        for _ in 0..<pairs {
            let request = VaultCalls.authenticate(user: user, keyId: keyId)
            authenticate.append(try Monotonic.measure { try connection.roundTrip(request) }.seconds)
            raw.append(try RawArgon2id.timeOne(kdf.parameters))
        }
        let daemonSummary = Summary(authenticate)
        let rawSummary = Summary(raw)
        let ratio = (daemonSummary?.median ?? 0) / (rawSummary?.median ?? 1)
        let named = keyName.map { " (\($0) key)" } ?? ""
        report.goal("KDF overhead\(named): Authenticate ÷ raw crypto_pwhash", ratio, atMost: 1.05)

        var section = Report.Section("KDF overhead\(named)")
        section.add("One connection, one Authenticate at a time (fresh 32-byte challenge each, built before")
        section.add("the clock starts), alternating with one in-process `crypto_pwhash` (Argon2id v1.3,")
        section.add("\(kdf.description), 32-byte output, 16-byte salt, the same 6-digit PIN); \(pairs) pairs")
        section.add("after one uncounted pair.")
        section.add()
        section.header("figure", "min / median / max")
        section.row("Authenticate latency (socket)", Format.summary(daemonSummary, Format.milliseconds))
        section.row("raw crypto_pwhash", Format.summary(rawSummary, Format.milliseconds))
        section.row("**ratio of medians**", "**\(Format.ratio(ratio))** (goal ≤ 1.05)")
        if let daemonSummary, let rawSummary {
            section.add()
            section.add("Median time outside the KDF: \(Format.milliseconds(daemonSummary.median - rawSummary.median)).")
        }
        report.add(section)
    }
}
