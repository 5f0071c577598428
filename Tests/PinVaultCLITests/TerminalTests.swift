import Foundation
import PinVaultTestKit
import XCTest

/// PINs typed at a real (pseudo-)terminal: prompted, never echoed, asked twice for a
/// new PIN, and the terminal's echo restored even when Ctrl-C ends the command.
final class TerminalTests: CLITestCase {
    func testRegister_onATerminal_asksTwice_andNeverEchoesThePin() throws {
        let session = try TerminalSession.run(
            ["register", "alice", "--socket", daemon.socketPath], answers: [pin, pin]
        )
        XCTAssertEqual(session.status, 0, session.output)
        XCTAssertTrue(session.output.contains("New PIN for alice: "), session.output)
        XCTAssertTrue(session.output.contains("Repeat new PIN for alice: "), session.output)
        XCTAssertTrue(session.output.contains("Registered a credential for alice."), session.output)
        XCTAssertFalse(session.output.contains(pin), "the PIN was echoed:\n\(session.output)")
        XCTAssertTrue(session.echoOnAtEnd)
        XCTAssertEqual(try authenticate(pin: pin).status, 0)
    }

    func testRegister_onATerminal_withTwoDifferentPins_registersNothing_andExits1() throws {
        let session = try TerminalSession.run(
            ["register", "alice", "--socket", daemon.socketPath], answers: [pin, otherPin]
        )
        XCTAssertEqual(session.status, 1, session.output)
        XCTAssertTrue(session.output.contains("the two PINs differ"), session.output)
        XCTAssertFalse(session.output.contains(pin) || session.output.contains(otherPin), session.output)
        XCTAssertEqual(try listed().count, 0)
    }

    func testCtrlC_atAPinPrompt_restoresTheTerminalsEcho() throws {
        let session = try TerminalSession.run(["register", "alice", "--socket", daemon.socketPath], answers: [nil])
        XCTAssertTrue(session.output.contains("New PIN for alice: "), session.output)
        XCTAssertEqual(session.status, -Int(SIGINT), "pinvault should die of the SIGINT: \(session.output)")
        XCTAssertTrue(session.echoOnAtEnd, "echo left off after Ctrl-C")
        XCTAssertEqual(try listed().count, 0)
    }

    func testChangePin_andUnregisterCommit_onATerminal_readTheirSecretsWithoutEcho() throws {
        let keyId = try registerKeyId()
        let change = try TerminalSession.run(
            ["change-pin", "alice", "--socket", daemon.socketPath], answers: [pin, otherPin, otherPin]
        )
        XCTAssertEqual(change.status, 0, change.output)
        XCTAssertTrue(change.output.contains("Current PIN for alice: "), change.output)
        XCTAssertFalse(change.output.contains(pin) || change.output.contains(otherPin), change.output)

        let begun = try pinvaultJSON(["unregister", "begin", "alice", "--pin-stdin"], input: otherPin + "\n")
        let token = try XCTUnwrap(begun["token"] as? String)
        let commit = try TerminalSession.run(
            ["unregister", "commit", "--key-id", keyId, "--socket", daemon.socketPath], answers: [token]
        )
        XCTAssertEqual(commit.status, 0, commit.output)
        XCTAssertTrue(commit.output.contains("Unregistration token: "), commit.output)
        XCTAssertFalse(commit.output.contains(token), "the token was echoed:\n\(commit.output)")
        XCTAssertEqual(try listed().count, 0)
    }

    func testReset_onATerminal_deletesOnlyAfterRESETIsTyped() throws {
        try register()
        let declined = try TerminalSession.run(["reset", "--socket", daemon.socketPath], answers: ["reset"])
        XCTAssertEqual(declined.status, 1, declined.output)
        XCTAssertTrue(declined.output.contains("Type RESET to confirm: "), declined.output)
        XCTAssertEqual(try listed().count, 1)
        let confirmed = try TerminalSession.run(["reset", "--socket", daemon.socketPath], answers: ["RESET"])
        XCTAssertEqual(confirmed.status, 0, confirmed.output)
        XCTAssertEqual(try listed().count, 0)
    }
}

/// Job control at a PIN prompt, and a terminal given as `--pin-stdin`: the PIN is never
/// echoed there either.
final class TerminalJobControlTests: CLITestCase {
    func testCtrlZ_atAPinPrompt_restoresEchoWhileStopped_andTurnsItOffAgainOnFg() throws {
        let session = try TerminalScenario.stopAndContinue(["check-pin", "--socket", daemon.socketPath], pin: pin)
        XCTAssertTrue(session.stopped, "Ctrl-Z did not stop pinvault:\n\(session.output)")
        XCTAssertTrue(session.echoWhileStopped, "echo left off for the shell while pinvault was stopped")
        XCTAssertTrue(session.echoOffWhileReading, "echo on after fg while the PIN is read")
        XCTAssertEqual(session.output.components(separatedBy: "PIN to check: ").count - 1, 2, "the prompt is shown again:\n\(session.output)")
        XCTAssertFalse(session.output.contains(pin), "the PIN was echoed after fg:\n\(session.output)")
        XCTAssertTrue(session.output.contains("The PIN meets the policy."), session.output)
        XCTAssertEqual(session.status, 0, session.output)
    }

    func testPinStdin_onATerminal_readsThePinWithoutEcho() throws {
        let session = try TerminalScenario.typeIntoStandardInput(["check-pin", "--pin-stdin", "--socket", daemon.socketPath], pin: pin)
        XCTAssertTrue(session.echoOffWhileReading, "echo stayed on while --pin-stdin read a terminal")
        XCTAssertFalse(session.output.contains(pin), "the PIN was echoed:\n\(session.output)")
        XCTAssertTrue(session.output.contains("The PIN meets the policy."), session.output)
        XCTAssertEqual(session.status, 0, session.output)
    }
}
