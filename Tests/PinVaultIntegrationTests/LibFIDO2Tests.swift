import Foundation
import PinVaultTestKit
import XCTest

/// Yubico's libfido2 (Debian's libfido2-1, the C library behind fido2-token, OpenSSH's
/// security-key support and pam_u2f) as a client of pinvaultd's CTAPHID socket: a C program
/// (Tests/Fido2, `make fido2-client`, under ASan and UBSan) gives libfido2 the socket as
/// its device's I/O, and every step goes through libfido2's own CTAPHID framing, CBOR, PIN
/// protocol and signature checks. The program prints one line per step; this test asserts
/// each, then reads the daemon's List.
final class LibFIDO2Tests: DaemonTestCase {
    private var build: TemporaryDirectory!
    private var program: String { build.path + "/libfido2-client" }

    override func setUpWithError() throws {
        try super.setUpWithError()
        build = try TemporaryDirectory()
        let made = try Subprocess.run(
            "/usr/bin/env", ["make", "-C", TestDaemon.repositoryRoot, "--no-print-directory", "fido2-client",
                             "FIDO2_DIR=\(build.path)"], timeout: 300)
        guard made.status == 0 else { throw TestKitError("make fido2-client (libfido2-dev: make test-deps): \(made)") }
    }

    override func tearDownWithError() throws {
        build = nil
        try super.tearDownWithError()
    }

    /// Runs the client in `mode`; its lines as step → the rest of the line.
    private func runClient(_ mode: String) throws -> (steps: [String: String], result: Subprocess.Result) {
        let result = try Subprocess.run(program, [daemon.ctaphidSocketPath, mode], timeout: 240)
        var steps: [String: String] = [:]
        for line in result.standardOutput.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            steps[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        return (steps, result)
    }

    func testLibFIDO2_setsThePin_makesPasskeys_signsIn_managesThem_countsAWrongPin_andResets() throws {
        try startDaemon()
        let (steps, result) = try runClient("run")
        XCTAssertEqual(result.status, 0, result.description)
        XCTAssertEqual(steps["end"], "0", result.description)
        func expect(_ step: String, _ value: String, file: StaticString = #filePath, line: UInt = #line) {
            XCTAssertEqual(steps[step], value, "\(step)\n\(result)", file: file, line: line)
        }

        // fido_dev_open: libfido2's CTAPHID INIT (nonce checked, channel taken), then its GetInfo.
        expect("io", "FIDO_ERR_SUCCESS")
        expect("open", "FIDO_ERR_SUCCESS")
        expect("device.fido2", "true")
        expect("device.protocol", "2")
        expect("device.capabilities", "wink=1 cbor=1 nmsg=1")
        expect("device.has_pin", "false")
        expect("device.supports_credman", "true")
        expect("info", "FIDO_ERR_SUCCESS")
        expect("info.versions", "FIDO_2_0 FIDO_2_1")
        expect("info.protocols", "2 1")
        expect("info.algorithms", "-7 -8")
        expect("info.aaguid", "614982c7800518a3645e1a8e5d30f065")
        let options = Set((steps["info.options"] ?? "").split(separator: " ").map(String.init))
        XCTAssertTrue(options.isSuperset(of: ["rk=true", "clientPin=false", "credMgmt=true"]), "\(options)")
        XCTAssertGreaterThanOrEqual(Int(steps["info.maxmsgsiz"] ?? "") ?? 0, 1024, result.description)

        // ClientPIN: no PIN yet; a PIN the policy refuses; setPIN; changePIN with a wrong old PIN
        // (counted), then the right one (the count cleared).
        XCTAssertEqual(steps["retries.unset"]?.split(separator: " ").first, "FIDO_ERR_PIN_NOT_SET", result.description)
        expect("set_pin.weak", "FIDO_ERR_PIN_POLICY_VIOLATION")
        expect("set_pin", "FIDO_ERR_SUCCESS")
        expect("retries.set", "FIDO_ERR_SUCCESS 5")
        // libfido2's touch (an empty pinUvAuthParam, to pick one key among several): answered
        // at once, with or without a PIN, and not counted as a wrong PIN.
        expect("touch.unset", "FIDO_ERR_SUCCESS 1")
        expect("touch.set", "FIDO_ERR_SUCCESS 1")
        expect("retries.after_touch", "FIDO_ERR_SUCCESS 5")
        expect("change_pin.wrong_old", "FIDO_ERR_PIN_INVALID")
        expect("retries.after_wrong_old", "FIDO_ERR_SUCCESS 4")
        expect("change_pin", "FIDO_ERR_SUCCESS")
        expect("retries.changed", "FIDO_ERR_SUCCESS 5")
        XCTAssertTrue((steps["info.pin.options"] ?? "").split(separator: " ").contains("clientPin=true"), result.description)

        // MakeCredential with the PIN: resident ES256 and EdDSA passkeys, packed self
        // attestation that libfido2 verifies (and, having no certificate, refuses as full).
        for (name, type) in [("alice", "-7"), ("bob", "-8"), ("carol", "-7")] {
            expect("make_cred.\(name)", "FIDO_ERR_SUCCESS")
            expect("make_cred.\(name).type", type)
            expect("make_cred.\(name).fmt", "packed")
            expect("make_cred.\(name).flags", "0x45")  // UP, UV, attested credential data
            expect("make_cred.\(name).sigcount", "0")
            expect("make_cred.\(name).aaguid", "614982c7800518a3645e1a8e5d30f065")
            expect("cred_verify_self.\(name)", "FIDO_ERR_SUCCESS")
            expect("cred_verify.\(name)", "FIDO_ERR_INVALID_ARGUMENT")
        }

        // GetAssertion with the PIN, discoverable: both of example.org's passkeys (the
        // second through GetNextAssertion), each signature verified by fido_assert_verify
        // with its passkey's public key and refused with another's.
        expect("assert.discoverable", "FIDO_ERR_SUCCESS 2")
        let signedIn = Set(["0", "1"].compactMap { steps["assert.discoverable.\($0).passkey"] })
        XCTAssertEqual(signedIn, ["alice", "bob"], result.description)
        for index in ["0", "1"] {
            let passkey = steps["assert.discoverable.\(index).passkey"] ?? ""
            expect("assert.discoverable.\(index).user", passkey)
            expect("assert.discoverable.\(index).flags", "0x05")  // UP, UV
            expect("assert.discoverable.\(index).verify", "FIDO_ERR_SUCCESS")
        }
        // alice's signature checked with carol's key (both ES256): refused.
        let aliceIndex = steps["assert.discoverable.0.passkey"] == "alice" ? "0" : "1"
        expect("assert.discoverable.\(aliceIndex).verify_other", "FIDO_ERR_INVALID_SIG")
        // With an allow list naming bob's EdDSA passkey: that one only.
        expect("assert.allow", "FIDO_ERR_SUCCESS 1")
        expect("assert.allow.0.passkey", "bob")
        expect("assert.allow.0.verify", "FIDO_ERR_SUCCESS")
        // alice's id after a hundred unknown ones: a request of some 5.5 KB, over ninety reports.
        expect("assert.long_allow", "FIDO_ERR_SUCCESS 1")
        expect("assert.long_allow.0.passkey", "alice")
        expect("assert.long_allow.0.verify", "FIDO_ERR_SUCCESS")
        // A relying party with no passkey, and alice's credential id offered to another rp id.
        expect("assert.other_rp", "FIDO_ERR_NO_CREDENTIALS 0")
        expect("assert.wrong_rp", "FIDO_ERR_NO_CREDENTIALS 0")

        // CredentialManagement: metadata, the relying parties, example.org's passkeys (their
        // ids and public keys those MakeCredential gave), carol's deleted.
        let metadata = (steps["credman.metadata"] ?? "").split(separator: " ").map(String.init)
        XCTAssertEqual(metadata.prefix(2), ["FIDO_ERR_SUCCESS", "3"], result.description)
        let remaining = Int(metadata.last ?? "") ?? -1
        XCTAssertGreaterThan(remaining, 0, result.description)
        let rps = (steps["credman.rp"] ?? "").split(separator: " ").map(String.init)
        XCTAssertEqual(rps.first, "FIDO_ERR_SUCCESS", result.description)
        XCTAssertEqual(Set(rps.dropFirst()), ["example.org", "example.net"], result.description)
        let rks = (steps["credman.rk"] ?? "").split(separator: " ").map(String.init)
        XCTAssertEqual(rks.first, "FIDO_ERR_SUCCESS", result.description)
        XCTAssertEqual(Set(rks.dropFirst()), ["alice/alice/-7", "bob/bob/-8"], result.description)
        expect("credman.del", "FIDO_ERR_SUCCESS")
        expect("credman.metadata.after_del", "FIDO_ERR_SUCCESS 2 \(remaining + 1)")
        expect("assert.deleted", "FIDO_ERR_NO_CREDENTIALS 0")

        // The old PIN, wrong now: PIN_INVALID, counted (getPINRetries one lower).
        expect("retries.before_wrong", "FIDO_ERR_SUCCESS 5")
        expect("assert.wrong_pin", "FIDO_ERR_PIN_INVALID 0")
        expect("retries.after_wrong", "FIDO_ERR_SUCCESS 4")

        // authenticatorReset more than ten seconds after the device's power-up: refused, and
        // nothing lost: the PIN set, the wrong PIN still counted.
        expect("reset.late", "FIDO_ERR_NOT_ALLOWED")
        XCTAssertTrue((steps["info.after_reset_refused.options"] ?? "").split(separator: " ").contains("clientPin=true"),
                      result.description)
        expect("retries.after_reset_refused", "FIDO_ERR_SUCCESS 4")

        // The daemon, over Varlink: the security key is the caller's, the wrong PIN counted in
        // List as getPINRetries said; ListPasskeys holds the two passkeys libfido2 made.
        let securityKeys = try client.list().filter { $0["purpose"] as? String == "webauthn" }
        XCTAssertEqual(securityKeys.count, 1, "\(securityKeys)")
        XCTAssertEqual(securityKeys.first?["ownerUid"] as? Int, Int(getuid()))
        XCTAssertEqual(securityKeys.first?["failedAttempts"] as? Int, 1, "\(securityKeys)")
        XCTAssertEqual(securityKeys.first?["remainingAttempts"] as? Int, 4, "\(securityKeys)")
        let passkeys = try XCTUnwrap(try client.succeeding("ListPasskeys")["passkeys"] as? [[String: Any]])
        let listed = passkeys.map { passkey in
            let id = Data(base64Encoded: passkey["credentialId"] as? String ?? "") ?? Data()
            return [passkey["rpId"] as? String ?? "", passkey["userName"] as? String ?? "",
                    passkey["algorithm"] as? String ?? "", id.map { String(format: "%02x", $0) }.joined()]
        }
        XCTAssertEqual(Set(listed), [["example.org", "alice", "p256", steps["make_cred.alice.id"] ?? "?"],
                                     ["example.org", "bob", "ed25519", steps["make_cred.bob.id"] ?? "?"]])

        // A Reset on a device just opened (its power-up): the security key and its passkeys wiped.
        let (reset, resetResult) = try runClient("reset")
        XCTAssertEqual(resetResult.status, 0, resetResult.description)
        XCTAssertEqual(reset["open"], "FIDO_ERR_SUCCESS", resetResult.description)
        XCTAssertEqual(reset["reset"], "FIDO_ERR_SUCCESS", resetResult.description)
        XCTAssertTrue((reset["info.reset.options"] ?? "").split(separator: " ").contains("clientPin=false"),
                      resetResult.description)
        XCTAssertEqual(reset["retries.reset"]?.split(separator: " ").first, "FIDO_ERR_PIN_NOT_SET", resetResult.description)
        XCTAssertEqual(try client.list().filter { $0["purpose"] as? String == "webauthn" }.count, 0)
        let left = try XCTUnwrap(try client.succeeding("ListPasskeys")["passkeys"] as? [[String: Any]])
        XCTAssertEqual(left.count, 0, "\(left)")
    }

    // MARK: fido2-token, fido2-cred, fido2-assert

    /// Runs one of Yubico's tools (Debian's fido2-tools) on the socket, through the shim that
    /// gives libfido2 the socket's I/O. setsid: no controlling terminal, so a PIN prompt
    /// reads `input` (the tools' readpassphrase falls back to standard input without one).
    private func tool(_ arguments: [String], input: String = "", preload: Bool = true) throws -> Subprocess.Result {
        var environment = ProcessInfo.processInfo.environment
        if preload { environment["LD_PRELOAD"] = build.path + "/libfido2-socket-preload.so" }
        return try Subprocess.run("/usr/bin/setsid", ["-w"] + arguments, input: Data(input.utf8), environment: environment)
    }

    private func lines(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    /// fido2-token, fido2-cred and fido2-assert open a hidraw device path: given the socket as
    /// shipped they fail to open it. With libfido2's I/O swapped for the socket's (the
    /// LD_PRELOAD shim, nothing else changed) they set the PIN, make ES256 and EdDSA passkeys
    /// whose self attestation fido2-cred -V verifies, sign in (fido2-assert -V verifies, and
    /// refuses another passkey's key), list and delete passkeys, and reset the device.
    func testFido2Tools_reachTheSocketOnlyThroughTheShim_andDoEverythingThere() throws {
        try startDaemon()
        let socket = daemon.ctaphidSocketPath
        let plain = try tool(["fido2-token", "-I", socket], preload: false)
        XCTAssertNotEqual(plain.status, 0, plain.description)
        XCTAssertTrue(plain.standardError.contains("fido_dev_open"), plain.description)

        let set = try tool(["fido2-token", "-S", socket], input: "\(pin)\n\(pin)\n")
        XCTAssertEqual(set.status, 0, set.description)
        let info = try tool(["fido2-token", "-I", socket])
        XCTAssertEqual(info.status, 0, info.description)
        for line in ["caps: 0x0d (wink, cbor, nomsg)", "version strings: FIDO_2_0, FIDO_2_1",
                     "algorithms: es256 (public-key), eddsa (public-key)", "aaguid: 614982c7800518a3645e1a8e5d30f065",
                     "options: rk, up, credMgmt, clientPin, pinUvAuthToken", "pin protocols: 2, 1", "pin retries: 5"] {
            XCTAssertTrue(info.standardOutput.contains(line + "\n"), "\(line)\n\(info)")
        }

        let work = try TemporaryDirectory()
        var publicKeys: [String: String] = [:]
        var credentialIds: [String: String] = [:]
        for type in ["es256", "eddsa"] {
            let request = work.path + "/\(type).request"
            let made = work.path + "/\(type).cred"
            publicKeys[type] = work.path + "/\(type).pem"
            // client data hash, rp id, user name, user id
            try [Data((0..<32).map { UInt8($0) }).base64EncodedString(), "tools.example", "user-\(type)",
                 Data(type.utf8).base64EncodedString(), ""].joined(separator: "\n").write(toFile: request, atomically: true, encoding: .utf8)
            let make = try tool(["fido2-cred", "-M", "-r", "-i", request, "-o", made, socket, type], input: "\(pin)\n")
            XCTAssertEqual(make.status, 0, make.description)
            XCTAssertEqual(try lines(made).dropFirst(2).first, "packed", make.description)
            let verify = try tool(["fido2-cred", "-V", "-i", made, "-o", publicKeys[type]!, type], preload: false)
            XCTAssertEqual(verify.status, 0, verify.description)
            credentialIds[type] = try lines(made).dropFirst(4).first
        }

        let request = work.path + "/assert.request"
        let assertion = work.path + "/assert.out"
        try [Data((0..<32).map { UInt8(0x80 | $0) }).base64EncodedString(), "tools.example", credentialIds["eddsa"] ?? "", ""]
            .joined(separator: "\n").write(toFile: request, atomically: true, encoding: .utf8)
        let get = try tool(["fido2-assert", "-G", "-v", "-i", request, "-o", assertion, socket], input: "\(pin)\n")
        XCTAssertEqual(get.status, 0, get.description)
        let verified = try tool(["fido2-assert", "-V", "-v", "-i", assertion, publicKeys["eddsa"]!, "eddsa"], preload: false)
        XCTAssertEqual(verified.status, 0, verified.description)
        let other = try tool(["fido2-assert", "-V", "-i", assertion, publicKeys["es256"]!, "es256"], preload: false)
        XCTAssertNotEqual(other.status, 0, "another passkey's key verified the signature: \(other)")

        let rps = try tool(["fido2-token", "-L", "-r", socket], input: "\(pin)\n")
        XCTAssertEqual(rps.status, 0, rps.description)
        XCTAssertTrue(rps.standardOutput.hasSuffix(" tools.example\n"), rps.description)
        let listed = try tool(["fido2-token", "-L", "-k", "tools.example", socket], input: "\(pin)\n")
        XCTAssertEqual(listed.status, 0, listed.description)
        XCTAssertEqual(listed.standardOutput.split(separator: "\n").count, 2, listed.description)
        let delete = try tool(["fido2-token", "-D", "-i", credentialIds["es256"] ?? "", socket], input: "\(pin)\n")
        XCTAssertEqual(delete.status, 0, delete.description)
        let passkeys = try XCTUnwrap(try client.succeeding("ListPasskeys")["passkeys"] as? [[String: Any]])
        XCTAssertEqual(passkeys.map { $0["credentialId"] as? String }, [credentialIds["eddsa"]], "\(passkeys)")

        // fido2-token -R opens the device (its power-up) and resets it at once.
        let reset = try tool(["fido2-token", "-R", socket])
        XCTAssertEqual(reset.status, 0, reset.description)
        XCTAssertEqual(try client.list().filter { $0["purpose"] as? String == "webauthn" }.count, 0)
    }
}
