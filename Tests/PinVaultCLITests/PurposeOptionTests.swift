import PinVaultCrypto
import XCTest

/// `register --purpose` takes its choices from the one list of purposes
/// (`KeyPurpose.registrable`): each registers and is listed as itself, the help names
/// them all, and `legacy` or a name the daemon does not know is a usage error (64) that
/// names the choices and registers nothing.
final class PurposeOptionTests: CLITestCase {
    func testEveryRegistrablePurpose_registers_andTheHelpAndTheRefusalNameThemAll() throws {
        let names = KeyPurpose.registrable.map(\.rawValue)
        XCTAssertFalse(names.contains("legacy"))
        for (index, name) in names.enumerated() {
            XCTAssertEqual(try register("user\(index)", purpose: name)["purpose"] as? String, name)
        }
        // The help, its wrapped lines joined.
        let help = try pinvault(["register", "--help"]).standardOutput.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let choices = names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
        XCTAssertTrue(help.contains("What the key is for: \(choices)."), help)
        for refusedName in ["legacy", "smtp"] {
            let refused = try pinvault(["register", "zed", "--purpose", refusedName, "--pin-stdin"], input: pin + "\n")
            XCTAssertEqual(refused.status, 64, "\(refused)")
            XCTAssertTrue(refused.standardError.contains("--purpose is one of " + names.joined(separator: ", ")), refused.standardError)
        }
        XCTAssertNil(try listed().first { $0["user"] as? String == "zed" })
    }
}
