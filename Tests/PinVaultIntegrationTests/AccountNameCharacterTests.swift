import Foundation
import PinVaultTestKit
import XCTest

/// User names and labels over the real socket (the interface's `Credential.user`):
/// each class of control, bidi and separator character answers
/// InvalidParameter(user / label) and costs nothing; the joiners stay allowed.
final class AccountNameCharacterTests: DaemonTestCase {
    override func setUpWithError() throws {
        try startDaemon()
    }

    private func assertInvalid(_ parameters: [String: Any], naming expected: String, _ message: String, line: UInt = #line) throws {
        let reply = try client.vault("Register", parameters)
        XCTAssertError(reply, "org.varlink.service.InvalidParameter", line: line)
        XCTAssertEqual(reply.string("parameter"), expected, message, line: line)
    }

    func testRegister_refusesEachClassInUserAndLabel_andKeepsJoiners() throws {
        let classes: [(String, String)] = [
            ("C1 control", "\u{9B}"),
            ("bidi embedding", "\u{202B}"),
            ("bidi override", "\u{202E}"),
            ("bidi isolate", "\u{2067}"),
            ("bidi mark", "\u{200F}"),
            ("line separator", "\u{2028}"),
            ("paragraph separator", "\u{2029}"),
            ("byte order mark", "\u{FEFF}"),
        ]
        for (name, character) in classes {
            try assertInvalid(["user": "bob" + character + "by", "pin": pin], naming: "user", name)
            try assertInvalid(["user": "bob", "pin": pin, "label": "bank" + character], naming: "label", name)
        }
        XCTAssertEqual(try client.list().count, 0, "nothing was registered")

        let joined = "👩\u{200D}💻 می\u{200C}خواهم"
        let credential = try client.register(user: joined, pin: pin, label: joined)
        XCTAssertEqual(credential.string("user"), joined)
        XCTAssertEqual(credential.string("label"), joined)
    }
}
