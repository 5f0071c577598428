import Foundation
import PinVaultTestKit
import XCTest

/// What a person reads: aligned tables, short sentences, the help and completions.
final class HumanOutputTests: CLITestCase {
    func testList_printsAlignedColumns_underTheirHeaders() throws {
        let laptop = try registerKeyId("alice@example.org", label: "laptop")
        let bob = try registerKeyId("bob")
        _ = try authenticate("bob", pin: wrongPin)
        let result = try pinvault(["list"])
        XCTAssertEqual(result.status, 0, result.description)
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3, result.standardOutput)
        let header = lines[0]
        for column in ["USER", "KEY ID", "LABEL", "STATE", "FAILED/REMAINING", "LAST USED", "CREATED"] {
            XCTAssertTrue(header.contains(column), header)
        }
        let keyColumn = try XCTUnwrap(header.range(of: "KEY ID")).lowerBound.utf16Offset(in: header)
        let stateColumn = try XCTUnwrap(header.range(of: "STATE")).lowerBound.utf16Offset(in: header)
        let alice = try XCTUnwrap(lines.first { $0.hasPrefix("alice@example.org") })
        let bobs = try XCTUnwrap(lines.first { $0.hasPrefix("bob ") })
        XCTAssertEqual(try XCTUnwrap(alice.range(of: laptop)).lowerBound.utf16Offset(in: alice), keyColumn)
        XCTAssertEqual(try XCTUnwrap(bobs.range(of: bob)).lowerBound.utf16Offset(in: bobs), keyColumn)
        XCTAssertEqual(try XCTUnwrap(bobs.range(of: "active")).lowerBound.utf16Offset(in: bobs), stateColumn)
        XCTAssertTrue(bobs.contains(" 1/4 "), bobs)
        XCTAssertTrue(bobs.contains(" - "), "no label shows as -: \(bobs)")
        XCTAssertTrue(alice.contains(" never "), alice)
        XCTAssertFalse(lines.contains { $0.hasSuffix(" ") }, "trailing spaces")
    }

    func testList_withNoCredentials_saysSo() throws {
        XCTAssertEqual(try pinvault(["list"]).standardOutput, "No credentials.\n")
    }

    func testPolicy_printsTheRulesInWords() throws {
        let result = try pinvault(["policy"])
        XCTAssertEqual(result.status, 0, result.description)
        XCTAssertTrue(result.standardOutput.contains("6 to 64 characters, digits only"), result.standardOutput)
        XCTAssertTrue(result.standardOutput.contains("after 5 wrong PINs in a row the credential is blocked"), result.standardOutput)
        XCTAssertTrue(result.standardOutput.contains("common PINs refused"), result.standardOutput)
    }

    func testAuth_printsKeyIdPublicKeyAndSignature() throws {
        let credential = try register()
        let result = try authenticate(pin: pin)
        XCTAssertEqual(result.status, 0, result.description)
        XCTAssertTrue(result.standardOutput.contains(credential["keyId"] as? String ?? "?"), result.standardOutput)
        XCTAssertTrue(result.standardOutput.contains(credential["publicKey"] as? String ?? "?"), result.standardOutput)
        XCTAssertTrue(result.standardOutput.contains("Signature:"), result.standardOutput)
    }

    func testAuth_afterWrongPins_saysHowManyWereTriedSinceTheLastSuccess() throws {
        try register()
        for _ in 0..<2 { _ = try authenticate(pin: wrongPin) }
        let result = try authenticate(pin: pin)
        XCTAssertEqual(result.status, 0, result.description)
        XCTAssertTrue(result.standardError.contains("2 wrong PINs were tried since your last success"), result.description)
        _ = try authenticate(pin: wrongPin)
        let json = try pinvaultJSON(["auth", "alice", "--challenge-hex", "6e6f6e6365", "--pin-stdin"], input: pin + "\n")
        XCTAssertEqual(json["failedAttemptsCleared"] as? Int, 1, "\(json)")
        let quiet = try authenticate(pin: pin)
        XCTAssertFalse(quiet.standardError.contains("were tried"), "nothing to tell after a clean success: \(quiet)")
    }

    func testHelp_listsEveryCommand_andEveryExitStatus() throws {
        let help = try PinVaultBinary.run(["--help"])
        XCTAssertEqual(help.status, 0, help.description)
        for command in ["policy", "check-pin", "register", "list", "auth", "change-pin", "unregister", "wipe", "unblock", "reset", "stats"] {
            XCTAssertTrue(help.standardOutput.contains("  \(command) "), "\(command) missing from:\n\(help.standardOutput)")
        }
        for status in ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "64", "69"] {
            XCTAssertNotNil(help.standardOutput.range(of: "\n *\(status)  [a-z]", options: .regularExpression), "exit \(status)")
        }
    }

    func testCompletionScript_forBash_isGenerated() throws {
        let result = try PinVaultBinary.run(["--generate-completion-script", "bash"])
        XCTAssertEqual(result.status, 0, result.description)
        XCTAssertTrue(result.standardOutput.contains("complete -"), result.standardOutput)
        XCTAssertTrue(result.standardOutput.contains("change-pin"), result.standardOutput)
        let check = try Subprocess.run("/bin/bash", ["-n"], input: Data(result.standardOutput.utf8))
        XCTAssertEqual(check.status, 0, "bash -n: \(check)")
    }
}
