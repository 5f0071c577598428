import Foundation
import PinVaultTestKit
import XCTest

/// Each subcommand succeeds against a real daemon and prints, with `--json`, the
/// Varlink reply in the interface's own field names and encodings.
final class CommandTests: CLITestCase {
    func testPolicy_json_printsTheDaemonsPolicyObject() throws {
        let reply = try pinvaultJSON(["policy"])
        let policy = try XCTUnwrap(reply["policy"] as? [String: Any])
        XCTAssertEqual(policy["minLength"] as? Int, 6)
        XCTAssertEqual(policy["maxLength"] as? Int, 64)
        XCTAssertEqual(policy["digitsOnly"] as? Bool, true)
        XCTAssertEqual(policy["throttleAfter"] as? Int, 3)
        XCTAssertEqual(policy["maxAttempts"] as? Int, 5)
        XCTAssertEqual(policy["onMaxAttempts"] as? String, "block")
        XCTAssertGreaterThan(policy["denyListSize"] as? Int ?? 0, 1000)
    }

    /// --socket and --json come before the command's name too, as `git -C` and
    /// `systemctl --user` users type them, and still after it; the last --socket given wins.
    func testGlobalOptions_beforeTheCommandsName_actAsAfterIt() throws {
        let keyId = try registerKeyId()
        let after = try PinVaultBinary.run(["list", "--socket", daemon.socketPath, "--json"])
        for arguments in [
            ["--socket", daemon.socketPath, "--json", "list"],
            ["--json", "list", "--socket", daemon.socketPath],
            ["--socket", "/nonexistent/pinvault.socket", "list", "--json", "--socket", daemon.socketPath],
        ] {
            let result = try PinVaultBinary.run(arguments)
            XCTAssertEqual(result.status, 0, "\(arguments): \(result)")
            XCTAssertEqual(result.standardOutput, after.standardOutput, "\(arguments)")
        }
        let listed = try Self.object(after.standardOutput)["credentials"] as? [[String: Any]]
        XCTAssertEqual(listed?.map { $0["keyId"] as? String }, [keyId])

        // A subcommand's subcommand, a PIN on stdin: the options reach it from the front.
        let begun = try PinVaultBinary.run(["--json", "--socket", daemon.socketPath, "unregister", "begin", "alice", "--pin-stdin"],
                                           input: pin + "\n")
        XCTAssertEqual(begun.status, 0, begun.description)
        XCTAssertEqual(try Self.object(begun.standardOutput)["keyId"] as? String, keyId)

        // Before the command, the socket is the one used: a wrong one fails as after it.
        let unreachable = try PinVaultBinary.run(["--socket", "/nonexistent/pinvault.socket", "policy"])
        XCTAssertEqual(unreachable.status, 69, unreachable.description)
        XCTAssertTrue(unreachable.standardError.contains("/nonexistent/pinvault.socket"), unreachable.description)
        // The agent takes --socket in either place, and refuses --json in either.
        for arguments in [["--json", "agent"], ["agent", "--json"]] {
            let refused = try PinVaultBinary.run(arguments)
            XCTAssertEqual(refused.status, 64, "\(arguments): \(refused)")
            XCTAssertTrue(refused.standardError.contains("--json"), refused.description)
        }
    }

    func testCheckPin_ofAGoodPin_exitsZero_withValidTrue() throws {
        let reply = try pinvaultJSON(["check-pin", "--pin-stdin"], input: pin + "\n")
        XCTAssertEqual(reply["valid"] as? Bool, true)
        XCTAssertEqual(reply["violations"] as? [String], [])
    }

    func testRegister_json_printsTheCredential_withBase64KeyAndRFC3339Time() throws {
        let credential = try register("alice@example.org", label: "laptop")
        XCTAssertEqual(credential["user"] as? String, "alice@example.org")
        XCTAssertEqual(credential["label"] as? String, "laptop")
        XCTAssertEqual(credential["state"] as? String, "active")
        XCTAssertEqual(credential["ownerUid"] as? Int, Int(getuid()))
        XCTAssertEqual(credential["remainingAttempts"] as? Int, 5)
        let keyId = try XCTUnwrap(credential["keyId"] as? String)
        XCTAssertNotNil(keyId.wholeMatch(of: /[0-9a-f]{32}/), keyId)
        let publicKey = try XCTUnwrap(Data(base64Encoded: credential["publicKey"] as? String ?? ""))
        XCTAssertEqual(publicKey.count, 32)
        let created = try XCTUnwrap(credential["createdAt"] as? String)
        XCTAssertNotNil(created.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/), created)
        XCTAssertNil(credential["lastUsedAt"], "an absent optional field is left out, as the daemon does")
    }

    func testList_json_printsEveryCredential_andOneUsersWhenNamed() throws {
        let first = try registerKeyId("alice", label: "laptop")
        let second = try registerKeyId("alice", pin: otherPin, label: "phone")
        let third = try registerKeyId("bob")
        XCTAssertEqual(Set(try listed().compactMap { $0["keyId"] as? String }), [first, second, third])
        let alices = try XCTUnwrap(try pinvaultJSON(["list", "alice"])["credentials"] as? [[String: Any]])
        XCTAssertEqual(Set(alices.compactMap { $0["keyId"] as? String }), [first, second])
    }

    func testAuth_json_printsASignatureThatAnIndependentVerifierAccepts() throws {
        let credential = try register()
        let challenge = Data("nonce from the relying party".utf8)
        let reply = try pinvaultJSON(
            ["auth", "alice", "--challenge-base64", challenge.base64EncodedString(), "--pin-stdin"], input: pin + "\n"
        )
        XCTAssertEqual(reply["keyId"] as? String, credential["keyId"] as? String)
        XCTAssertEqual(reply["publicKey"] as? String, credential["publicKey"] as? String)
        XCTAssertEqual(reply["pinPolicyOutdated"] as? Bool, false)
        let publicKey = try XCTUnwrap(Data(base64Encoded: reply["publicKey"] as? String ?? ""))
        let signature = try XCTUnwrap(Data(base64Encoded: reply["signature"] as? String ?? ""))
        XCTAssertEqual(signature.count, 64)
        XCTAssertTrue(try IndependentEd25519.verify(publicKey: publicKey, signature: signature, message: challenge))
    }

    func testAuth_withOwnerUid_asAdmin_signsWithAnotherUidsCredential_andNobodyElseMayPassIt() throws {
        guard getuid() == 0 else {
            try RootOnlySuites.skip(self, "needs root to register a credential as another uid") { XCTSkip($0) }
        }
        let nobody = UInt32(65534)
        let registered = try pinvault(["register", "alice", "--pin-stdin", "--json"], input: pin + "\n", uid: nobody)
        XCTAssertEqual(registered.status, 0, registered.description)
        let credential = try XCTUnwrap(try Self.object(registered.standardOutput)["credential"] as? [String: Any])

        let reply = try pinvaultJSON(
            ["auth", "alice", "--owner-uid", String(nobody), "--challenge-hex", "01", "--pin-stdin"], input: pin + "\n"
        )
        XCTAssertEqual(reply["keyId"] as? String, credential["keyId"] as? String)
        let refused = try pinvault(
            ["auth", "alice", "--owner-uid", String(nobody), "--challenge-hex", "01", "--pin-stdin"], input: pin + "\n", uid: nobody
        )
        XCTAssertEqual(refused.status, 7, refused.description)
    }

    func testAuth_withAHexChallenge_andAChallengeFile_signsTheSameBytes() throws {
        let credential = try register()
        let publicKey = try XCTUnwrap(Data(base64Encoded: credential["publicKey"] as? String ?? ""))
        let directory = try TemporaryDirectory()
        let path = directory.path + "/challenge"
        let challenge = Data([0x00, 0xff, 0x10, 0x0a])
        try challenge.write(to: URL(fileURLWithPath: path))
        for option in [["--challenge-hex", "00FF100a"], ["--challenge-file", path]] {
            let reply = try pinvaultJSON(["auth", "alice", "--pin-stdin"] + option, input: pin + "\n")
            let signature = try XCTUnwrap(Data(base64Encoded: reply["signature"] as? String ?? ""))
            XCTAssertTrue(try IndependentEd25519.verify(publicKey: publicKey, signature: signature, message: challenge), "\(option)")
        }
    }

    func testAuth_withTheChallengeOnStdin_andThePinFromAnFd_signsIt() throws {
        let credential = try register()
        let publicKey = try XCTUnwrap(Data(base64Encoded: credential["publicKey"] as? String ?? ""))
        let result = try pinvault(
            ["auth", "alice", "--challenge-file", "-", "--pin-fd", "3", "--json"],
            input: "challenge bytes",
            shell: "exec 3<<EOF\n\(pin)\nEOF\nexec \"$@\""
        )
        XCTAssertEqual(result.status, 0, result.description)
        let signature = try XCTUnwrap(Data(base64Encoded: try Self.object(result.standardOutput)["signature"] as? String ?? ""))
        XCTAssertTrue(try IndependentEd25519.verify(publicKey: publicKey, signature: signature, message: Data("challenge bytes".utf8)))
    }

    func testChangePin_readsCurrentThenNew_andOnlyTheNewPinWorksAfterwards() throws {
        let keyId = try registerKeyId()
        let reply = try pinvaultJSON(["change-pin", "alice", "--pin-stdin"], input: "\(pin)\n\(otherPin)\n")
        XCTAssertEqual((reply["credential"] as? [String: Any])?["keyId"] as? String, keyId)
        XCTAssertEqual(try authenticate(pin: otherPin).status, 0)
        XCTAssertEqual(try authenticate(pin: pin).status, 2)
    }

    func testUnregisterBeginThenCommit_deletesTheCredential() throws {
        let keyId = try registerKeyId()
        let begun = try pinvaultJSON(["unregister", "begin", "alice", "--pin-stdin"], input: pin + "\n")
        XCTAssertEqual(begun["keyId"] as? String, keyId)
        let token = try XCTUnwrap(begun["token"] as? String)
        XCTAssertNotNil(token.wholeMatch(of: /[A-Za-z0-9_-]{43}/), token)
        XCTAssertNotNil(begun["expiresAt"] as? String)
        let committed = try pinvaultJSON(["unregister", "commit", "--key-id", keyId, "--token-stdin"], input: token + "\n")
        XCTAssertTrue(committed.isEmpty, "\(committed)")
        XCTAssertEqual(try listed().count, 0)
    }

    func testUnregisterBeginThenAbort_makesTheCredentialUsableAgain() throws {
        let keyId = try registerKeyId()
        let begun = try pinvaultJSON(["unregister", "begin", "alice", "--pin-stdin"], input: pin + "\n")
        XCTAssertEqual(try listed().first?["state"] as? String, "pendingUnregistration")
        let token = try XCTUnwrap(begun["token"] as? String)
        _ = try pinvaultJSON(["unregister", "abort", "--key-id", keyId, "--token-stdin"], input: token + "\n")
        XCTAssertEqual(try listed().first?["state"] as? String, "active")
        XCTAssertEqual(try authenticate(pin: pin).status, 0)
    }

    func testUnregisterBegin_human_printsTheTokenAloneOnItsLastLine_thatCommitAccepts() throws {
        let keyId = try registerKeyId()
        let begun = try pinvault(["unregister", "begin", "alice", "--pin-stdin"], input: pin + "\n")
        XCTAssertEqual(begun.status, 0, begun.description)
        XCTAssertTrue(begun.standardOutput.contains(keyId), begun.description)
        let token = try XCTUnwrap(begun.standardOutput.split(separator: "\n").last.map(String.init))
        let committed = try pinvault(["unregister", "commit", "--key-id", keyId, "--token-stdin"], input: token + "\n")
        XCTAssertEqual(committed.status, 0, committed.description)
        XCTAssertTrue(committed.standardOutput.contains("deleted"), committed.description)
    }

    func testWipe_withYes_deletesEveryCredentialOfTheUser_andNoOthers() throws {
        let first = try registerKeyId("alice", label: "laptop")
        let second = try registerKeyId("alice", pin: otherPin, label: "phone")
        let bobs = try registerKeyId("bob")
        let reply = try pinvaultJSON(["wipe", "alice", "--key-id", first, "--yes", "--pin-stdin"], input: pin + "\n")
        XCTAssertEqual(reply["user"] as? String, "alice")
        XCTAssertEqual(Set(reply["deletedKeyIds"] as? [String] ?? []), [first, second])
        XCTAssertEqual(try listed().compactMap { $0["keyId"] as? String }, [bobs])
    }

    func testUnblock_asAdmin_revivesABlockedCredential() throws {
        try startDaemon(["lockout": ["throttle_after": "3", "max_attempts": "3"]])
        let keyId = try registerKeyId()
        for _ in 0..<3 { _ = try authenticate(pin: wrongPin) }
        XCTAssertEqual(try listed().first?["state"] as? String, "blocked")
        let reply = try pinvaultJSON(["unblock", "alice", "--key-id", keyId])
        let credential = try XCTUnwrap(reply["credential"] as? [String: Any])
        XCTAssertEqual(credential["state"] as? String, "active")
        XCTAssertEqual(credential["failedAttempts"] as? Int, 0)
        XCTAssertEqual(try authenticate(pin: pin).status, 0)
    }

    /// Past twice max_attempts wrong PINs since the owner's last success, Unblock is
    /// refused: status 4, and the message says what is left.
    func testUnblock_pastTwiceMaxAttempts_isRefused_withStatus4() throws {
        try startDaemon(["lockout": ["throttle_after": "3", "max_attempts": "3"]])
        let keyId = try registerKeyId()
        for _ in 0..<3 { _ = try authenticate(pin: wrongPin) }
        XCTAssertEqual(try pinvault(["unblock", "alice", "--key-id", keyId]).status, 0)
        for _ in 0..<3 { _ = try authenticate(pin: wrongPin) }
        let refused = try pinvault(["unblock", "alice", "--key-id", keyId])
        XCTAssertEqual(refused.status, 4, refused.description)
        XCTAssertTrue(refused.standardError.contains("6 wrong PINs were tried since its owner's last success"), refused.description)
        XCTAssertTrue(refused.standardError.contains("pinvault wipe"), refused.description)
        let json = try pinvault(["unblock", "alice", "--key-id", keyId, "--json"])
        XCTAssertTrue(json.standardOutput.contains("io.pinvault.Vault.UnblockRefused"), json.description)
        XCTAssertTrue(json.standardOutput.contains("\"wrongPins\": 6"), json.description)
        XCTAssertEqual(try listed().first?["state"] as? String, "blocked")
    }

    func testReset_withYes_deletesEverything_andCountsIt() throws {
        try register("alice")
        try register("bob")
        XCTAssertEqual(try pinvaultJSON(["reset", "--yes"])["deletedCount"] as? Int, 2)
        XCTAssertEqual(try listed().count, 0)
    }

    func testStats_asAdmin_printsTheCounters() throws {
        try register()
        _ = try authenticate(pin: pin)
        let counters = try XCTUnwrap(try pinvaultJSON(["stats"])["counters"] as? [String: Any])
        XCTAssertGreaterThanOrEqual(counters["requests"] as? Int ?? 0, 2)
        XCTAssertEqual(counters["authenticationsSucceeded"] as? Int, 1)
        XCTAssertGreaterThanOrEqual(counters["kdfEvaluations"] as? Int ?? 0, 2, "one seal and one PIN check")
        XCTAssertNotNil(counters["uptimeSeconds"] as? Int)
        let human = try pinvault(["stats"])
        XCTAssertEqual(human.status, 0, human.description)
        XCTAssertNotNil(human.standardOutput.range(of: #"KDF evaluations: +[1-9][0-9]*\n"#, options: .regularExpression), human.standardOutput)
    }
}
