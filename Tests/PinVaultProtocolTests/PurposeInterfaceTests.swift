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
        for purpose in KeyPurpose.allCases {
            let credential = VaultCredential(
                user: "alice", keyId: "00112233445566778899aabbccddeeff", label: nil, purpose: purpose,
                publicKey: Array(repeating: 7, count: 32), ownerUid: 1000, createdAt: 1, lastUsedAt: nil, failedAttempts: 0,
                remainingAttempts: 10, state: .active, lockedUntil: nil, unregistrationExpiresAt: nil)
            let buffer = ReplyBuffer()
            JSONWriter.writeObject(into: buffer) { credential.writeFields(&$0) }
            let decoded = try withDocument(bytes: buffer.copyBytes()) { document in
                try VaultCredential(from: ParameterDecoder(document: document, object: document.root))
            }
            XCTAssertEqual(decoded.purpose, purpose)
        }
    }
}
