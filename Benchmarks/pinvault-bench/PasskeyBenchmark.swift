import Glibc
import PinVaultCrypto
import PinVaultTestKit

/// The security key over the daemon's CTAPHID socket, as a platform drives it: a sign-in
/// with a fresh PIN (getPinUvAuthTokenUsingPinWithPermissions, which runs Argon2id, then
/// GetAssertion) against one raw `crypto_pwhash`, alternating; and GetAssertion under a
/// token already made (no KDF: an HMAC checked, a P-256 signature), on one core.
enum PasskeyBenchmark {
    static let pin = "482915"
    static let rpId = "bench.example"

    static func run(daemon: DaemonInstance, kdf: ConfiguredKDF, cores: Int, parameters: BenchParameters, report: Report) throws {
        guard let daemonPid = daemon.pid else { throw BenchError("pinvaultd is not running") }
        let platform = try CTAPPlatform(path: daemon.daemon.ctaphidSocketPath)
        try platform.setPin(pin)
        let token = try platform.token(pin)
        let clientDataHash = RandomBytes.make(count: 32)
        try platform.makeCredential(rpId: rpId, token: token, clientDataHash: clientDataHash)

        // One of each first, not counted: first-touch page faults on both sides.
        try platform.signIn(rpId: rpId, token: try platform.token(pin), clientDataHash: clientDataHash, presence: true)
        _ = try RawArgon2id.timeOne(kdf.parameters)
        var fresh: [Double] = [], raw: [Double] = []
        for _ in 0..<parameters.kdfPairs {
            fresh.append(try Monotonic.measure {
                try platform.signIn(rpId: rpId, token: try platform.token(pin), clientDataHash: clientDataHash, presence: true)
            }.seconds)
            raw.append(try RawArgon2id.timeOne(kdf.parameters))
        }
        let freshSummary = Summary(fresh), rawSummary = Summary(raw)
        let ratio = (freshSummary?.median ?? 0) / (rawSummary?.median ?? 1)
        report.goal("Passkey sign-in with a fresh PIN: getPinUvAuthToken + GetAssertion ÷ raw crypto_pwhash", ratio, atMost: 1.05)

        // Under one token, pinned with the daemon to one CPU.
        let reused = try platform.token(pin)
        let calls = parameters.quick ? 500 : 5_000
        try CPUPlacement.oneCore.apply(to: [daemonPid], cores: cores)
        defer { try? CPUPlacement.scheduler.apply(to: [daemonPid], cores: cores) }
        for _ in 0..<50 { try platform.signIn(rpId: rpId, token: reused, clientDataHash: clientDataHash, presence: false) }
        var rates: [Double] = []
        for _ in 0..<parameters.roundTripRounds {
            rates.append(Double(calls) / (try Monotonic.measure {
                for _ in 0..<calls { try platform.signIn(rpId: rpId, token: reused, clientDataHash: clientDataHash, presence: false) }
            }.seconds))
        }
        let rateSummary = Summary(rates)
        report.goal("Passkey GetAssertion with a token (one core): GetAssertion/s", rateSummary?.median ?? 0, atLeast: 5_000)

        var section = Report.Section("Passkeys (CTAP 2.1 over the CTAPHID socket)")
        section.add("A platform written here (PIN/UV auth protocol two, one CTAPHID channel on one connection to the")
        section.add("daemon's CTAPHID socket, 64-byte reports) holding one discoverable ES256 passkey of `\(rpId)`.")
        section.add("Fresh PIN: getPinUvAuthTokenUsingPinWithPermissions (the PIN's hash checked by Argon2id at the")
        section.add("configured cost, counted first) then GetAssertion with that token, alternating with one in-process")
        section.add("`crypto_pwhash` (\(kdf.description)); \(parameters.kdfPairs) pairs after one uncounted pair.")
        section.add("With a token: GetAssertion without presence (`up` false) under one token, \(parameters.roundTripRounds) rounds")
        section.add("of \(calls) after 50 uncounted, client and daemon pinned to CPU 0.")
        section.add()
        section.header("figure", "min / median / max")
        section.row("fresh PIN: token + GetAssertion", Format.summary(freshSummary, Format.milliseconds))
        section.row("raw crypto_pwhash", Format.summary(rawSummary, Format.milliseconds))
        section.row("**ratio of medians**", "**\(Format.ratio(ratio))** (goal ≤ 1.05)")
        section.row("GetAssertion with a token (one core)", Format.summary(rateSummary, Format.rate) + " (goal ≥ 5,000/s)")
        report.add(section)
    }
}
