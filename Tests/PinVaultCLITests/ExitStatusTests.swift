import Foundation
import PinVaultTestKit
import XCTest

/// Every documented exit status, each from the real failure it stands for, with the
/// human message on stderr and the `--json` error document on stdout.
final class ExitStatusTests: CLITestCase {
    func testWrongPin_exits2_andSaysHowManyAttemptsAreLeft() throws {
        try register()
        let result = try authenticate(pin: wrongPin)
        XCTAssertEqual(result.status, 2, result.description)
        XCTAssertEqual(result.standardError, "pinvault: wrong PIN (4 attempts left)\n")
        XCTAssertEqual(result.standardOutput, "")
    }

    func testWrongPin_json_printsTheVarlinkErrorAndItsParameters_onStdout() throws {
        try register()
        let error = try pinvaultJSON(
            ["auth", "alice", "--challenge-hex", "00", "--pin-stdin"], input: wrongPin + "\n", expecting: 2
        )
        XCTAssertEqual(error["error"] as? String, "io.pinvault.Vault.WrongPin")
        XCTAssertEqual((error["parameters"] as? [String: Any])?["remainingAttempts"] as? Int, 4)
    }

    func testLockedOut_exits3_withTheWaitInTheJSONError() throws {
        // A wait that outlasts a slow machine's CLI runs (the test configuration's is 1 s).
        try startDaemon(["lockout": ["throttle_after": "3", "throttle_base_seconds": "300", "throttle_max_seconds": "300"]])
        try register()
        for _ in 0..<3 { _ = try authenticate(pin: wrongPin) }
        let error = try pinvaultJSON(
            ["auth", "alice", "--challenge-hex", "00", "--pin-stdin"], input: pin + "\n", expecting: 3
        )
        XCTAssertEqual(error["error"] as? String, "io.pinvault.Vault.LockedOut")
        XCTAssertGreaterThan((error["parameters"] as? [String: Any])?["retryAfterSeconds"] as? Int ?? 0, 0)
    }

    func testBlockedCredential_exits4() throws {
        try startDaemon(["lockout": ["throttle_after": "3", "max_attempts": "3"]])
        try register()
        for _ in 0..<3 { _ = try authenticate(pin: wrongPin) }
        let result = try authenticate(pin: pin)
        XCTAssertEqual(result.status, 4, result.description)
        XCTAssertTrue(result.standardError.contains("blocked"), result.description)
    }

    func testWipedCredential_exits4() throws {
        try startDaemon(["lockout": ["throttle_after": "3", "max_attempts": "3", "on_max_attempts": "\"wipe\""]])
        try register()
        let statuses = try (0..<3).map { _ in try authenticate(pin: wrongPin).status }
        XCTAssertEqual(statuses, [2, 2, 4])
        XCTAssertEqual(try listed().count, 0)
    }

    func testRegister_withAPinThatBreaksThePolicy_exits5_namingEveryRule() throws {
        let error = try pinvaultJSON(["register", "alice", "--pin-stdin"], input: "123456\n", expecting: 5)
        XCTAssertEqual(error["error"] as? String, "io.pinvault.Vault.PinPolicyViolation")
        XCTAssertEqual((error["parameters"] as? [String: Any])?["violations"] as? [String], ["sequential", "denyListed"])
        XCTAssertEqual(try listed().count, 0)
    }

    func testCheckPin_ofAPinThatBreaksThePolicy_exits5_andListsTheRules() throws {
        let result = try pinvault(["check-pin", "--pin-stdin"], input: "1111\n")
        XCTAssertEqual(result.status, 5, result.description)
        XCTAssertTrue(result.standardOutput.hasPrefix("The PIN breaks the policy:\n"), result.description)
        XCTAssertEqual(result.standardOutput.split(separator: "\n").filter { $0.hasPrefix("  - ") }.count, 3, result.description)
        let reply = try pinvaultJSON(["check-pin", "--pin-stdin"], input: "1111\n", expecting: 5)
        XCTAssertEqual(reply["valid"] as? Bool, false)
        XCTAssertEqual(reply["violations"] as? [String], ["tooShort", "tooManyIdenticalDigits", "denyListed"])
    }

    func testNoSuchCredential_exits6() throws {
        let result = try authenticate("nobody-here", pin: pin)
        XCTAssertEqual(result.status, 6, result.description)
        XCTAssertEqual(result.standardError, "pinvault: no such credential\n")
    }

    func testAmbiguousCredential_exits6_listingTheKeyIds_andSuggestingKeyId() throws {
        let first = try registerKeyId(label: "laptop")
        let second = try registerKeyId(pin: otherPin, label: "phone")
        let result = try authenticate(pin: pin)
        XCTAssertEqual(result.status, 6, result.description)
        XCTAssertTrue(result.standardError.contains("--key-id"), result.description)
        XCTAssertTrue(result.standardError.contains(first) && result.standardError.contains(second), result.description)
        XCTAssertEqual(try authenticate(pin: pin, extra: ["--key-id", first]).status, 0)
    }

    func testStats_andReset_asAnotherUid_exit7() throws {
        try requireRoot()
        try register()
        let stats = try pinvault(["stats"], uid: ForeignUidClient.nobody)
        XCTAssertEqual(stats.status, 7, stats.description)
        XCTAssertTrue(stats.standardError.hasPrefix("pinvault: permission denied"), stats.description)
        let reset = try pinvault(["reset", "--yes", "--json"], uid: ForeignUidClient.nobody)
        XCTAssertEqual(reset.status, 7, reset.description)
        XCTAssertEqual(try Self.object(reset.standardOutput)["error"] as? String, "org.varlink.service.PermissionDenied")
        XCTAssertEqual(try listed().count, 1, "the refused reset deleted nothing")
    }

    func testCommit_withAWrongToken_exits9() throws {
        let keyId = try registerKeyId()
        _ = try pinvaultJSON(["unregister", "begin", "alice", "--pin-stdin"], input: pin + "\n")
        let wrong = String(repeating: "A", count: 43)
        let error = try pinvaultJSON(["unregister", "commit", "--key-id", keyId, "--token-stdin"], input: wrong + "\n", expecting: 9)
        XCTAssertEqual(error["error"] as? String, "io.pinvault.Vault.InvalidToken")
        XCTAssertEqual(try listed().count, 1)
    }

    func testAuth_whileAnUnregistrationIsPending_exits9() throws {
        try register()
        _ = try pinvaultJSON(["unregister", "begin", "alice", "--pin-stdin"], input: pin + "\n")
        let result = try authenticate(pin: pin)
        XCTAssertEqual(result.status, 9, result.description)
        XCTAssertTrue(result.standardError.contains("unregistration is pending"), result.description)
    }

    func testAnUnreachableSocket_exits69() throws {
        let result = try PinVaultBinary.run(["policy", "--socket", daemon.root + "/no-such-socket"])
        XCTAssertEqual(result.status, 69, result.description)
        XCTAssertTrue(result.standardError.contains("cannot connect to pinvaultd"), result.description)
        let json = try PinVaultBinary.run(["policy", "--json", "--socket", daemon.root + "/no-such-socket"])
        XCTAssertEqual(json.status, 69, json.description)
        XCTAssertEqual(try Self.object(json.standardOutput)["error"] as? String, "io.pinvault.cli.DaemonUnavailable")
    }

    func testPinvaultSocketVariable_choosesTheSocket_whenNoOptionIsGiven() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["PINVAULT_SOCKET"] = daemon.socketPath
        let result = try PinVaultBinary.run(["policy", "--json"], environment: environment)
        XCTAssertEqual(result.status, 0, result.description)
    }

    func testUsageErrors_exit64() throws {
        let cases: [[String]] = [
            ["no-such-command"],
            ["list", "--no-such-option"],
            ["auth", "alice", "--pin-stdin"],                                       // no challenge
            ["auth", "alice", "--challenge-hex", "abc", "--pin-stdin"],             // odd hex
            ["auth", "alice", "--challenge-base64", String(repeating: "A", count: 1368), "--pin-stdin"], // 1026 bytes
            ["register", "alice", "--pin-stdin", "--pin-fd", "0"],
            ["register", "alice", "--pin-fd", "57"],                                // not open
        ]
        try register()
        for arguments in cases {
            let result = try pinvault(arguments, input: pin + "\n")
            XCTAssertEqual(result.status, 64, "\(arguments): \(result)")
        }
    }

    func testAnEndlessChallengeFile_isReadOnlyPastTheLimit_andRefusedAsUsage() throws {
        try register()
        let result = try PinVaultBinary.run(
            ["auth", "alice", "--challenge-file", "/dev/zero", "--pin-stdin", "--socket", daemon.socketPath],
            input: pin + "\n"
        )
        XCTAssertEqual(result.status, 64, result.description)
        XCTAssertTrue(result.standardError.contains("the challenge must be 1 to 1024 bytes; the challenge file /dev/zero holds more"), result.description)
        XCTAssertEqual(try listed().first?["failedAttempts"] as? Int, 0)
    }

    func testAClosedStdout_exits1_withAMessage_notDeathBySIGPIPE() throws {
        // Python starts pinvault with SIGPIPE at its default action, and stdout a pipe
        // whose reading end is already closed.
        let script = """
            import os, subprocess, sys
            read, write = os.pipe()
            os.close(read)
            done = subprocess.run(sys.argv[1:], stdout=write, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
            print(done.returncode)
            sys.stdout.write(done.stderr.decode())
            """
        for arguments in [["policy", "--json"], ["policy"]] {
            let result = try Subprocess.run(
                "/usr/bin/python3", ["-c", script, PinVaultBinary.path] + arguments + ["--socket", daemon.socketPath]
            )
            let lines = result.standardOutput.split(separator: "\n", maxSplits: 1).map(String.init)
            XCTAssertEqual(lines.first, "1", "\(arguments): \(result)")
            XCTAssertEqual(lines.last, "pinvault: cannot write to standard output: Broken pipe\n", "\(arguments): \(result)")
        }
    }

    func testBusy_exits8_whenTheKDFQueueIsFull() throws {
        try startDaemon([
            "kdf": ["opslimit": "2", "memlimit_mib": "32", "max_parallel": "1", "queue_max": "1", "queue_per_uid": "1"],
            "lockout": ["throttle_after": "50", "max_attempts": "100"],
        ], removing: ["kdf": ["memlimit_kib"]])
        try register()
        let script = """
            for i in 1 2 3 4 5 6 7 8; do
              (echo \(pin) | "$@" >/dev/null 2>&1; echo "status $?") &
            done
            wait
            """
        let result = try pinvault(["auth", "alice", "--challenge-hex", "00", "--pin-stdin"], shell: script)
        let statuses = result.standardOutput.split(separator: "\n").map(String.init)
        XCTAssertEqual(statuses.count, 8, result.description)
        XCTAssertTrue(statuses.allSatisfy { $0 == "status 0" || $0 == "status 8" }, result.description)
        XCTAssertTrue(statuses.contains("status 8"), "no call was refused as busy: \(result)")
    }
}
