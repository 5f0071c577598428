import Foundation
import PinVaultTestKit

/// PKCS#11 signatures (docs/PKCS11.md): `C_SignInit` + `C_Sign` through
/// pinvault-pkcs11.so, Varlink `Sign` through libpinvault, and SoftHSM2's `C_Sign` on an
/// Ed25519 key of its own; then `CKM_ECDSA` over a 32-byte digest with a P-256 `ssh`
/// token (Varlink `SignDigest`) beside SoftHSM2's `CKM_ECDSA` on a P-256 key of its own:
/// one C loop for all (`pkcs11/bench/p11-sign-bench.c`, built by `make bench`), 32 bytes a
/// signature, rounds alternating between the parties.
enum PKCS11SignBenchmark {
    /// Short enough that "user (pkcs11)" fits the 32 bytes of a token label.
    static let user = "p11bench"

    static func run(daemon: DaemonInstance, parameters: BenchParameters, report: Report) throws {
        let root = TestDaemon.repositoryRoot
        let driver = root + "/.build-pkcs11/p11-sign-bench"
        let module = root + "/.build-pkcs11/pinvault-pkcs11.so"
        let softHSM = "/usr/lib/softhsm/libsofthsm2.so"
        for path in [driver, module, softHSM, "/usr/bin/softhsm2-util", "/usr/bin/pkcs11-tool"]
        where !FileManager.default.fileExists(atPath: path) {
            throw BenchError("\(path) is missing: make bench builds the module and installs softhsm2 and opensc")
        }
        let keyId = try daemon.register(user: user, label: "pkcs11")
        _ = try daemon.register(user: user, label: "ecdsa", purpose: "ssh", algorithm: "p256")
        let tokens = try TemporaryDirectory()
        let softHSMConfig = tokens.path + "/softhsm2.conf"
        try "directories.tokendir = \(tokens.path)\nobjectstore.backend = file\nlog.level = ERROR\n"
            .write(toFile: softHSMConfig, atomically: true, encoding: .utf8)
        var environment = ChildProcess.inheritedEnvironment()
        environment["PINVAULT_SOCKET"] = daemon.socketPath
        environment["SOFTHSM2_CONF"] = softHSMConfig
        // SoftHSM2's tools take PINs on argv only: the benchmark's throwaway PIN of a throwaway token.
        try check(Subprocess.run("/usr/bin/softhsm2-util", ["--init-token", "--free", "--label", "bench", "--pin", VaultCalls.pin,
                                                            "--so-pin", "12345678"], environment: environment), "softhsm2-util")
        try check(Subprocess.run("/usr/bin/pkcs11-tool", ["--module", softHSM, "--token-label", "bench", "--login", "--pin", VaultCalls.pin,
                                                          "--keypairgen", "--key-type", "EC:edwards25519", "--id", "01"],
                                 environment: environment), "pkcs11-tool --keypairgen")
        try check(Subprocess.run("/usr/bin/softhsm2-util", ["--init-token", "--free", "--label", "bench-ec", "--pin", VaultCalls.pin,
                                                            "--so-pin", "12345678"], environment: environment), "softhsm2-util")
        try check(Subprocess.run("/usr/bin/pkcs11-tool", ["--module", softHSM, "--token-label", "bench-ec", "--login", "--pin", VaultCalls.pin,
                                                          "--keypairgen", "--key-type", "EC:prime256v1", "--id", "02"],
                                 environment: environment), "pkcs11-tool --keypairgen (P-256)")

        let calls = parameters.quick ? 200 : 2_000
        // `reference`: the SoftHSM2 row of the same mechanism, for the last column.
        let parties: [(name: String, arguments: [String], mechanism: [String], reference: Int)] = [
            ("PinVault PKCS#11 C_Sign", ["pkcs11", module, "\(user) (pkcs11)"], [], 3),
            ("Varlink Sign (libpinvault)", ["varlink", user, keyId], [], 3),
            ("Varlink Sign, then verified", ["varlink-verify", user, keyId], [], 3),
            ("SoftHSM2 C_Sign", ["pkcs11", softHSM, "bench"], [], 3),
            ("PinVault PKCS#11 C_Sign, CKM_ECDSA (P-256)", ["pkcs11", module, "\(user) (ecdsa)"], ["ECDSA"], 5),
            ("SoftHSM2 C_Sign, CKM_ECDSA (P-256)", ["pkcs11", softHSM, "bench-ec"], ["ECDSA"], 5),
        ]
        var rates = Array(repeating: [Double](), count: parties.count)
        for _ in 0..<parameters.roundTripRounds {
            for (index, party) in parties.enumerated() {
                let result = try Subprocess.run(driver, party.arguments + ["1", "\(calls)"] + party.mechanism,
                                                input: Data((VaultCalls.pin + "\n").utf8), environment: environment, timeout: 600)
                try check(result, party.name)
                guard let rate = result.standardOutput.split(separator: "\n").last.flatMap({ Double($0) }) else {
                    throw BenchError("\(party.name): no rate in \(result)")
                }
                rates[index].append(rate)
            }
        }
        let summaries = rates.map(Summary.init)
        let pkcs11 = summaries[0]?.median ?? 0, varlink = summaries[1]?.median ?? 1, verified = summaries[2]?.median ?? 1
        let softhsm = summaries[3]?.median ?? 1
        let ecdsa = summaries[4]?.median ?? 0, softhsmECDSA = summaries[5]?.median ?? 1

        var section = Report.Section("PKCS#11 signatures")
        section.add("`C_SignInit` + `C_Sign` (CKM_EDDSA, 32 bytes) through pinvault-pkcs11.so after one `C_Login` (an Unlock at the")
        section.add("shipped Argon2id cost), the same 32 bytes through libpinvault's `pinvault_sign` (Varlink `Sign`, what the module")
        section.add("calls), the same again with each signature verified by libsodium against the listed public key (what")
        section.add("the module does before `C_Sign` returns a signature), and SoftHSM2 2.6's `C_Sign` on an Ed25519 key of its")
        section.add("own token (its key in the calling process, its PIN checked there). One C loop for all (`pkcs11/bench/p11-sign-bench.c`), a process per round, after 50")
        section.add("uncounted signatures; \(parameters.roundTripRounds) rounds of \(calls) signatures, the parties alternating in each round.")
        section.add("The P-256 rows: `CKM_ECDSA` over the 32 bytes as a SHA-256 digest (what `ssh -I` asks), through a P-256")
        section.add("`ssh` token (Varlink `SignDigest`, the DER signature verified with libcrypto and turned into r ‖ s), and")
        section.add("SoftHSM2's `CKM_ECDSA` on a P-256 key of its own; the last column compares each row with SoftHSM2's of its mechanism.")
        section.add()
        section.header("figure", "min / median / max", "÷ Varlink Sign", "÷ SoftHSM2 C_Sign")
        for (index, party) in parties.enumerated() {
            let median = summaries[index]?.median ?? 0
            let reference = summaries[party.reference]?.median ?? 1
            section.row(party.name, Format.summary(summaries[index], Format.rate), Format.ratio(median / varlink), Format.ratio(median / reference))
        }
        section.add()
        section.add("Median round trip: PKCS#11 \(Format.microseconds(1 / max(pkcs11, 1))), Varlink Sign "
                    + "\(Format.microseconds(1 / max(varlink, 1))), verified \(Format.microseconds(1 / max(verified, 1))), "
                    + "SoftHSM2 \(Format.microseconds(1 / max(softhsm, 1))); P-256 CKM_ECDSA \(Format.microseconds(1 / max(ecdsa, 1))), "
                    + "SoftHSM2's \(Format.microseconds(1 / max(softhsmECDSA, 1))). The module's")
        section.add("`C_Sign` is one Varlink `Sign`, one verification and its own lock and checks: it should stay near the")
        section.add("\"then verified\" figure.")
        report.add(section)
    }

    private static func check(_ result: Subprocess.Result, _ what: String) throws {
        guard result.status == 0 else { throw BenchError("\(what) failed: \(result)") }
    }
}
