import Foundation
import PinVaultTestKit
import XCTest

/// What a newcomer expects of a command line: a version, a usage error for a help
/// topic that does not exist, a choice among several credentials before any PIN is
/// typed, the PIN policy checked before a new PIN is typed again, what is unlocked in
/// `list`, and messages that say what is wrong.
final class NewcomerHabitTests: CLITestCase {
    func testVersion_isTheDaemonsVersion() throws {
        let cli = try pinvault(["--version"])
        XCTAssertEqual(cli.status, 0, cli.description)
        let daemon = try Subprocess.run(TestDaemon.binaryPath, ["--version"])
        XCTAssertEqual(cli.standardOutput, daemon.standardOutput)
        XCTAssertTrue(cli.standardOutput.first?.isNumber == true, cli.standardOutput)
    }

    func testHelpOfACommandThatDoesNotExist_isAUsageError_andPrintsNoHelp() throws {
        for topic in [["bogus"], ["ssh-cert", "bogus"]] {
            let result = try PinVaultBinary.run(["help"] + topic)
            XCTAssertEqual(result.status, 64, result.description)
            XCTAssertEqual(result.standardOutput, "", "no help for what does not exist")
            XCTAssertTrue(result.standardError.contains("no command bogus"), result.standardError)
        }
        let known = try PinVaultBinary.run(["help", "ssh-cert", "add"])
        XCTAssertEqual(known.status, 0, known.description)
        XCTAssertTrue(known.standardOutput.contains("USAGE: pinvault ssh-cert add"), known.standardOutput)
    }

    /// A discussion's lines are joined with a single backslash in the source: a doubled
    /// one reaches the reader.
    func testEveryCommandsHelp_printsNoStrayBackslash() throws {
        for command in [["agent"], ["ssh-cert"], ["unlock"], ["register"], ["list"], []] {
            let result = try PinVaultBinary.run(["help"] + command)
            XCTAssertEqual(result.status, 0, result.description)
            let backslashes = result.standardOutput.split(separator: "\n").filter { $0.hasSuffix("\\") || $0 == "\\" }
            XCTAssertEqual(backslashes, [], "pinvault help \(command.joined(separator: " "))")
        }
    }

    /// Foundation brings its internationalization and ICU data (tens of MB) into the
    /// command line; FoundationEssentials has all it uses. The debug build links the
    /// toolchain's libraries dynamically, so ldd shows what an import pulled in.
    func testTheCommandLine_linksFoundationEssentialsOnly() throws {
        let linked = try Subprocess.run("/usr/bin/ldd", [PinVaultBinary.path])
        XCTAssertEqual(linked.status, 0, linked.description)
        for library in ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so"] {
            XCTAssertFalse(linked.standardOutput.contains(library), "pinvault links \(library):\n\(linked.standardOutput)")
        }
    }

    // MARK: Several credentials

    /// Two credentials of alice, labelled laptop and phone; their key ids.
    private func twoCredentials() throws -> (laptop: String, phone: String) {
        (try registerKeyId(label: "laptop"), try registerKeyId(pin: otherPin, label: "phone"))
    }

    /// Without a terminal, a PIN command among several credentials stops before it
    /// reads a PIN, listing each key id with its label: the wrong PIN on stdin is never
    /// read, so never sent, so never counted.
    func testSeveralCredentials_withoutATerminal_listsThemWithLabels_beforeReadingAPin() throws {
        let (laptop, phone) = try twoCredentials()
        for command in [["auth", "alice", "--challenge-hex", "00"], ["unlock", "alice"], ["change-pin", "alice"],
                        ["unregister", "begin", "alice"]] {
            let result = try pinvault(command + ["--pin-stdin"], input: wrongPin + "\n" + otherPin + "\n")
            XCTAssertEqual(result.status, 6, "\(command): \(result)")
            XCTAssertTrue(result.standardError.contains("--label"), result.standardError)
            let rows = result.standardError.split(separator: "\n").map(String.init)
            XCTAssertTrue(rows.contains { $0.contains("laptop") && $0.contains(laptop) }, result.standardError)
            XCTAssertTrue(rows.contains { $0.contains("phone") && $0.contains(phone) }, result.standardError)
        }
        let json = try pinvaultJSON(["auth", "alice", "--challenge-hex", "00", "--pin-stdin"], input: wrongPin + "\n", expecting: 6)
        XCTAssertEqual(json["error"] as? String, "io.pinvault.Vault.AmbiguousCredential")
        XCTAssertEqual(Set((json["parameters"] as? [String: Any])?["keyIds"] as? [String] ?? []), [laptop, phone])
        XCTAssertEqual(try listed().map { $0["failedAttempts"] as? Int }, [0, 0], "no PIN was read, so none was counted")
    }

    func testLabel_choosesTheCredential() throws {
        let (_, phone) = try twoCredentials()
        let auth = try authenticate(pin: otherPin, extra: ["--label", "phone"])
        XCTAssertEqual(auth.status, 0, auth.description)
        XCTAssertTrue(auth.standardOutput.contains(phone), auth.standardOutput)
        let unknown = try authenticate(pin: pin, extra: ["--label", "tablet"])
        XCTAssertEqual(unknown.status, 6, unknown.description)
        XCTAssertTrue(unknown.standardError.contains("no credential labelled tablet"), unknown.standardError)
        XCTAssertEqual(try authenticate(pin: pin, extra: ["--label", "laptop", "--key-id", phone]).status, 64)
    }

    /// At a terminal it asks which one, showing the labels, and only then the PIN.
    func testSeveralCredentials_atATerminal_asksWhichOne_beforeThePin() throws {
        let (laptop, phone) = try twoCredentials()
        let session = try TerminalSession.run(
            ["auth", "alice", "--challenge-hex", "00", "--socket", daemon.socketPath], answers: ["phone", otherPin]
        )
        XCTAssertEqual(session.status, 0, session.output)
        let question = try XCTUnwrap(session.output.range(of: "Which one (number or label): "), session.output)
        let prompt = try XCTUnwrap(session.output.range(of: "PIN for alice: "), session.output)
        XCTAssertLessThan(question.lowerBound, prompt.lowerBound, "the choice comes before the PIN")
        let menu = String(session.output[..<question.lowerBound])
        XCTAssertTrue(menu.contains("laptop") && menu.contains(laptop) && menu.contains("phone") && menu.contains(phone), menu)
        XCTAssertTrue(session.output.contains("Key ID:      \(phone)"), session.output)
        XCTAssertFalse(session.output.contains(otherPin), "the PIN was echoed")

        let numbered = try TerminalSession.run(["unlock", "alice", "--socket", daemon.socketPath], answers: ["9"])
        XCTAssertEqual(numbered.status, 64, numbered.output)
        XCTAssertFalse(numbered.output.contains("PIN for alice"), "no PIN is asked once nothing was chosen: \(numbered.output)")
    }

    // MARK: A new PIN

    /// The policy is checked after the first entry: a PIN it refuses is not asked again.
    func testRegister_atATerminal_checksThePolicy_beforeAskingAgain() throws {
        let session = try TerminalSession.run(
            ["register", "alice", "--socket", daemon.socketPath], answers: ["123456", "123456"]
        )
        XCTAssertEqual(session.status, 5, session.output)
        XCTAssertTrue(session.output.contains("does not meet the policy"), session.output)
        XCTAssertFalse(session.output.contains("Repeat new PIN"), session.output)
        XCTAssertEqual(try listed().count, 0)

        _ = try registerKeyId()
        let change = try TerminalSession.run(
            ["change-pin", "alice", "--socket", daemon.socketPath], answers: [pin, "111111", "111111"]
        )
        XCTAssertEqual(change.status, 5, change.output)
        XCTAssertFalse(change.output.contains("Repeat new PIN"), change.output)
        XCTAssertEqual(try authenticate(pin: pin).status, 0, "the PIN stayed")
    }

    // MARK: What list and the messages say

    func testList_showsWhatIsUnlocked_andUntilWhen() throws {
        let keyId = try registerKeyId(label: "laptop")
        let locked = try pinvault(["list"])
        XCTAssertTrue(locked.standardOutput.hasPrefix("USER"), locked.standardOutput)
        XCTAssertTrue(locked.standardOutput.split(separator: "\n")[0].contains("UNLOCKED UNTIL"), locked.standardOutput)
        let unlocked = try pinvaultJSON(["unlock", "alice", "--ttl", "10m", "--pin-stdin"], input: pin + "\n")
        let until = try XCTUnwrap(unlocked["unlockedUntil"] as? String, "\(unlocked)")
        let lines = try pinvault(["list"]).standardOutput.split(separator: "\n").map(String.init)
        let header = lines[0]
        let row = try XCTUnwrap(lines.first { $0.contains(keyId) })
        let column = try XCTUnwrap(header.range(of: "UNLOCKED UNTIL")).lowerBound.utf16Offset(in: header)
        XCTAssertEqual(try XCTUnwrap(row.range(of: until), row).lowerBound.utf16Offset(in: row), column, "\(header)\n\(row)")
        XCTAssertEqual(try pinvault(["lock", "alice"]).status, 0)
        let relocked = try pinvault(["list"]).standardOutput
        XCTAssertFalse(relocked.contains(until), relocked)
    }

    /// One wording for the wrong PINs a right one cleared, singular and plural, in
    /// every command that takes a PIN.
    func testUnlock_tellsOfTheWrongPinsItCleared_inTheOneWording() throws {
        _ = try registerKeyId()
        _ = try authenticate(pin: wrongPin)
        let one = try pinvault(["unlock", "alice", "--pin-stdin"], input: pin + "\n")
        XCTAssertEqual(one.status, 0, one.description)
        XCTAssertTrue(one.standardError.contains("pinvault: 1 wrong PIN was tried since your last success\n"), one.standardError)
        for _ in 0..<2 { _ = try pinvault(["unlock", "alice", "--pin-stdin"], input: wrongPin + "\n") }
        let two = try pinvault(["unlock", "alice", "--pin-stdin"], input: pin + "\n")
        XCTAssertTrue(two.standardError.contains("pinvault: 2 wrong PINs were tried since your last success\n"), two.standardError)
        XCTAssertFalse(two.standardError.contains("(s)"), two.standardError)
    }

    /// The wrong purpose names the command that cannot use the key.
    func testWrongPurpose_namesTheCommand() throws {
        _ = try register(purpose: "ssh")
        let result = try authenticate(pin: pin)
        XCTAssertEqual(result.status, 11, result.description)
        XCTAssertTrue(result.standardError.contains("this key is for ssh; pinvault auth cannot use it"), result.standardError)
    }
}
