import PinVaultCrypto
@testable import PinVaultProtocol
import XCTest

/// `KeyPurpose` is generated from the interface's `Credential.purpose` at build time
/// (libpinvault's `pinvault_purpose` is checked against the same line by `make
/// lib-test`): the same values in the same order; each purpose but `legacy` has a header
/// byte of its own and is registrable; and the wire model reads and writes every one.
final class PurposeInterfaceTests: XCTestCase {
    /// The values of `  purpose: (…),` in `type Credential (…)`, read here on their own.
    private func interfacePurposes() throws -> [String] {
        let credential = try XCTUnwrap(VaultInterface.description.range(of: "\ntype Credential (\n"))
        let rest = VaultInterface.description[credential.upperBound...]
        let line = try XCTUnwrap(rest.split(separator: "\n").first { $0.hasPrefix("  purpose: (") })
        let inside = try XCTUnwrap(line.dropFirst("  purpose: (".count).split(separator: ")").first)
        return inside.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    func testKeyPurpose_isTheInterfacesPurposeEnum_inItsOrder() throws {
        XCTAssertEqual(KeyPurpose.allCases.map(\.rawValue), try interfacePurposes())
        XCTAssertEqual(VaultCredential.Purpose.allCases, KeyPurpose.allCases)
    }

    func testEveryPurposeButLegacy_hasAHeaderByteOfItsOwn_andIsRegistrable() {
        let bytes = KeyPurpose.allCases.compactMap(\.headerByte)
        XCTAssertEqual(Set(bytes).count, bytes.count, "a header byte is never shared")
        XCTAssertFalse(bytes.contains(0))
        XCTAssertNil(KeyPurpose.legacy.headerByte)
        XCTAssertEqual(KeyPurpose.registrable, KeyPurpose.allCases.filter { $0 != .legacy })
    }

    func testTheWireCredential_carriesEveryPurpose() throws {
        let publicKey = Base64.encodedString([UInt8](repeating: 7, count: 32))
        for purpose in KeyPurpose.allCases {
            let text = #"{"user":"alice","keyId":"00112233445566778899aabbccddeeff","purpose":""# + purpose.rawValue
                + #"","algorithm":"ed25519","publicKey":""# + publicKey + #"","ownerUid":1000,"#
                + #""createdAt":"2026-01-01T00:00:00Z","failedAttempts":0,"remainingAttempts":10,"state":"active"}"#
            let decoded = try withParameters(text) { try VaultCredential(from: $0) }
            XCTAssertEqual(decoded.purpose, purpose)
            let buffer = ReplyBuffer()
            JSONWriter.writeObject(into: buffer) { decoded.writeFields(&$0) }
            XCTAssertTrue(String(decoding: buffer.copyBytes(), as: UTF8.self).contains(#""purpose":""# + purpose.rawValue + #"""#))
        }
    }
}
