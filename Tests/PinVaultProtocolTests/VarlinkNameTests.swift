@testable import PinVaultProtocol
import XCTest

/// The one-pass, byte-level name grammar.
final class VarlinkNameTests: XCTestCase {
    func testIsValidInterface_acceptsReverseDomainNames() {
        for name in ["io.pinvault.Vault", "a.b", "org.varlink.service", "com.example-x.v2", "A.b", "io.1x", "a-b.c-d"] {
            XCTAssertTrue(VarlinkName.isValidInterface(name), name)
        }
    }

    func testIsValidInterface_refusesWhatTheGrammarDoesNot() {
        let names = [
            "", "io", ".", "a.", ".a", "a..b", "1io.x", "-io.x", "io-.x", "io.-x", "io.x-", "io.x_y",
            "io.pin vault", "io.pinvault.Vault.", "io.pinväult", "io.x\u{0}",
        ]
        for name in names {
            XCTAssertFalse(VarlinkName.isValidInterface(name), name)
        }
    }

    func testIsValidMember_wantsAnUppercaseLetterThenLettersAndDigits() {
        for name in ["GetPolicy", "A", "Z9", "CommitUnregister"] {
            XCTAssertTrue(VarlinkName.isValidMember(name), name)
        }
        for name in ["", "getPolicy", "9A", "Get-Policy", "Get_Policy", "Gét", "Get Policy"] {
            XCTAssertFalse(VarlinkName.isValidMember(name), name)
        }
    }

    func testSplit_cutsAtTheLastDot() throws {
        let names = try XCTUnwrap(VarlinkName.split(qualified: "io.pinvault.Vault.GetPolicy"))
        XCTAssertEqual(names.interface, "io.pinvault.Vault")
        XCTAssertEqual(names.member, "GetPolicy")
    }

    func testSplit_refusesAnInvalidHalf() {
        for name in ["GetPolicy", "io.pinvault.Vault.", ".GetPolicy", "io.GetPolicy", "io.pinvault.Vault.getPolicy", "io..x.M"] {
            XCTAssertNil(VarlinkName.split(qualified: name), name)
        }
    }

    func testValidators_acceptSubstrings() {
        let qualified = "io.pinvault.Vault.GetPolicy"
        let dot = qualified.lastIndex(of: ".") ?? qualified.endIndex
        XCTAssertTrue(VarlinkName.isValidInterface(qualified[..<dot]))
        XCTAssertTrue(VarlinkName.isValidMember(qualified[qualified.index(after: dot)...]))
        XCTAssertFalse(VarlinkName.isValidMember(qualified[..<dot]))
    }
}
