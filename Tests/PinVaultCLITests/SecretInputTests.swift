import Foundation
import PinVaultTestKit
import XCTest

/// Where PINs and tokens come from: never argv; a terminal, `--pin-stdin` or an
/// inherited descriptor, and nothing else.
final class SecretInputTests: CLITestCase {
    func testPinStdin_registersWithTheLine_withoutItsNewline() throws {
        try register(pin: pin)
        XCTAssertEqual(try authenticate(pin: pin).status, 0)
        XCTAssertEqual(try authenticate(pin: pin + "\r").status, 0, "a CRLF line ends the PIN too")
    }

    func testPinFd_readsThePinFromAnInheritedPipe() throws {
        let result = try pinvault(
            ["register", "alice", "--pin-fd", "3", "--json"],
            shell: "printf '%s\\n' \(pin) | { exec 3<&0 </dev/null; exec \"$@\"; }"
        )
        XCTAssertEqual(result.status, 0, result.description)
        XCTAssertEqual(try authenticate(pin: pin).status, 0)
    }

    func testAPinOnTheCommandLine_isNoOption() throws {
        for option in [["--pin", pin], ["--pin=\(pin)"], ["--new-pin", pin], ["--token", "x"]] {
            let result = try pinvault(["register", "alice"] + option, input: pin + "\n")
            XCTAssertEqual(result.status, 64, "\(option): \(result)")
        }
        XCTAssertEqual(try listed().count, 0)
        let help = try PinVaultBinary.run(["register", "--help"])
        XCTAssertFalse(help.standardOutput.contains("--pin "), help.standardOutput)
        XCTAssertFalse(help.standardOutput.contains("--pin="), help.standardOutput)
    }

    func testNoTerminal_andNoPinOption_isAUsageError_thatReadsNothing() throws {
        let result = try pinvault(["register", "alice"], input: pin + "\n")
        XCTAssertEqual(result.status, 64, result.description)
        XCTAssertTrue(result.standardError.contains("--pin-stdin"), result.description)
        XCTAssertEqual(try listed().count, 0)
    }

    func testNoTerminal_andNoTokenOption_isAUsageError() throws {
        let keyId = try registerKeyId()
        let result = try pinvault(["unregister", "abort", "--key-id", keyId])
        XCTAssertEqual(result.status, 64, result.description)
        XCTAssertTrue(result.standardError.contains("--token-stdin"), result.description)
    }

    func testAnEmptyPin_isAUsageError_thatSendsNothing_andCountsNoAttempt() throws {
        let keyId = try registerKeyId()
        let commands: [[String]] = [
            ["auth", "alice", "--challenge-hex", "00", "--pin-stdin"],
            ["unregister", "begin", "alice", "--pin-stdin"],
            ["wipe", "alice", "--yes", "--pin-stdin"],
            ["register", "bob", "--pin-stdin"],
        ]
        for arguments in commands {
            let result = try pinvault(arguments, input: "\n")
            XCTAssertEqual(result.status, 64, "\(arguments): \(result)")
            XCTAssertEqual(result.standardError, "pinvault: the PIN from standard input is empty\n", "\(arguments)")
        }
        for input in ["\n\(otherPin)\n", "\(pin)\n\n"] {
            let change = try pinvault(["change-pin", "alice", "--pin-stdin"], input: input)
            XCTAssertEqual(change.status, 64, change.description)
        }
        let credentials = try listed()
        XCTAssertEqual(credentials.map { $0["keyId"] as? String }, [keyId])
        XCTAssertEqual(credentials.first?["failedAttempts"] as? Int, 0, "no empty PIN was sent and counted")
        XCTAssertEqual(credentials.first?["state"] as? String, "active")
        XCTAssertEqual(try authenticate(pin: pin).status, 0, "the PIN was not changed")
    }

    func testAnEmptyPin_toCheckPin_isAnsweredByThePolicy() throws {
        let reply = try pinvaultJSON(["check-pin", "--pin-stdin"], input: "\n", expecting: 5)
        XCTAssertEqual(reply["violations"] as? [String], ["empty"])
    }

    func testNoInputAtAll_isAUsageError() throws {
        try register()
        let noInput = try pinvault(["auth", "alice", "--challenge-hex", "00", "--pin-stdin"], input: "")
        XCTAssertEqual(noInput.status, 64, noInput.description)
        XCTAssertTrue(noInput.standardError.contains("no PIN on standard input"), noInput.description)
        XCTAssertEqual(try listed().first?["failedAttempts"] as? Int, 0)
    }

    func testChallengeFromStdin_whileThePinIsAlsoOnStdin_isRefused() throws {
        try register()
        let result = try pinvault(["auth", "alice", "--challenge-file", "-", "--pin-stdin"], input: pin + "\nchallenge")
        XCTAssertEqual(result.status, 64, result.description)
        XCTAssertEqual(try listed().first?["failedAttempts"] as? Int, 0)
    }

    func testResetAndWipe_withoutYes_andWithoutATerminal_refuse() throws {
        try register()
        let reset = try pinvault(["reset"])
        XCTAssertEqual(reset.status, 64, reset.description)
        XCTAssertTrue(reset.standardError.contains("--yes"), reset.description)
        let wipe = try pinvault(["wipe", "alice", "--pin-stdin"], input: pin + "\n")
        XCTAssertEqual(wipe.status, 64, wipe.description)
        XCTAssertEqual(try listed().count, 1, "nothing was deleted")
    }
}
