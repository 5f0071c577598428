import Foundation
import PinVaultTestKit
import XCTest

/// The module signs in with the user's `login` credential only (docs/PAM.md, "Which credential"),
/// against the real daemon: `label=` narrows among login credentials; a credential
/// made for `authenticate` or `ssh` is never used, whatever its label, and its PIN
/// is never sent. (Legacy credentials, which Register cannot make: ReplyHandlingTests.)
final class CredentialChoiceTests: PAMTestCase {
    private let otherPin = "614937"

    func testAnAuthenticateOrSSHCredential_isNeverUsed_andItsPinNeverAskedFor() throws {
        try startDaemon()
        try registerAsUser(label: "login", purpose: "authenticate")
        try registerAsUser(label: "login", pin: otherPin, purpose: "ssh")
        for options in [[], ["label=login"]] {
            let outcome = try pamtester(try onlyModule(options), input: pin + "\n")
            XCTAssertTrue(outcome.failed(with: PAMResult.userUnknown), "\(options): \(outcome)")
            XCTAssertEqual(outcome.prompts, 0, "\(options): \(outcome)")
        }
        XCTAssertFalse(daemon.log.contains("event=auth"), daemon.log)
    }

    func testTheLoginCredential_isChosen_whateverItsLabel_andLabelNarrows() throws {
        try startDaemon()
        try registerAsUser(label: "login", purpose: "authenticate")
        let login = try registerAsUser(label: "laptop", pin: otherPin)
        XCTAssertEqual(login["purpose"] as? String, "login")
        let chosen = try pamtester(try onlyModule(), input: otherPin + "\n")
        XCTAssertTrue(chosen.succeeded, chosen.description)
        let line = daemon.log.split(separator: "\n").first { $0.contains("event=auth.ok") }
        XCTAssertTrue(line?.contains("keyId=\(login["keyId"] as? String ?? "?")") == true, daemon.log)
        // The authenticate credential's PIN is a wrong PIN for the login key.
        let other = try pamtester(try onlyModule(), input: pin + "\n")
        XCTAssertTrue(other.failed(with: PAMResult.authError), other.description)

        XCTAssertTrue(try pamtester(try onlyModule(["label=laptop"]), input: otherPin + "\n").succeeded)
        let mislabelled = try pamtester(try onlyModule(["label=login"]), input: otherPin + "\n")
        XCTAssertTrue(mislabelled.failed(with: PAMResult.userUnknown), mislabelled.description)
    }

    func testTwoLoginCredentials_needALabel() throws {
        try startDaemon()
        try registerAsUser(label: "laptop")
        try registerAsUser(label: "desk", pin: otherPin)
        let ambiguous = try pamtester(try onlyModule(), input: pin + "\n")
        XCTAssertTrue(ambiguous.failed(with: PAMResult.authInfoUnavailable), ambiguous.description)
        XCTAssertEqual(ambiguous.prompts, 0, ambiguous.description)
        XCTAssertTrue(try pamtester(try onlyModule(["label=desk"]), input: otherPin + "\n").succeeded)
        XCTAssertTrue(try pamtester(try onlyModule(["label=laptop"]), input: pin + "\n").succeeded)
    }
}
