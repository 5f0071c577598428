import PinVaultCrypto
import PinVaultEngine
import PinVaultProtocol
import XCTest

@testable import PinVaultClient
@testable import PinVaultVarlink

/// The one error vocabulary, end to end: every engine error, encoded by the Varlink
/// door's table, is a reply the client decodes into the same error — and together
/// they cover every error the interface file declares. A new error that misses a
/// table fails here (or does not build: the door's and the client's switches are
/// exhaustive).
final class VarlinkErrorTableTests: XCTestCase {
    /// Each engine error with the client error it must arrive as.
    private let table: [(VaultError, PinVaultError)] = [
        (.wrongPin(remainingAttempts: 4), .wrongPin(remainingAttempts: 4)),
        (.lockedOut(retryAfterSeconds: 30), .lockedOut(retryAfter: .seconds(30))),
        (.credentialBlocked, .credentialBlocked),
        (.credentialWiped, .credentialWiped),
        (.unblockRefused(wrongPins: 20), .unblockRefused(wrongPins: 20)),
        (.pinPolicyViolation([.tooShort, .sequential]), .pinPolicyViolation([.tooShort, .sequential])),
        (.noSuchCredential, .noSuchCredential),
        (.ambiguousCredential([KeyID(hex: "00112233445566778899aabbccddeeff")!]),
         .ambiguousCredential(keyIds: ["00112233445566778899aabbccddeeff"])),
        (.tooManyCredentials(limit: 8), .tooManyCredentials(limit: 8)),
        (.unregistrationPending(expiresAt: 1_767_225_600), .unregistrationPending(expiresAt: Date(unixSeconds: 1_767_225_600))),
        (.invalidToken, .invalidToken),
        (.busy(retryAfterMilliseconds: 250), .busy(retryAfter: .milliseconds(250))),
        (.conflict, .conflict),
        (.shuttingDown, .shuttingDown),
        (.tooManySessions(limit: 16), .tooManySessions(limit: 16)),
        (.permissionDenied, .permissionDenied),
        (.notUnlocked, .notUnlocked),
        (.internalError, .internalError),
        (.wrongPurpose(.ssh), .wrongPurpose(.ssh)),
        (.wrongPurpose(.legacy), .wrongPurpose(.legacy)),
        (.invalidChallenge, .invalidParameter("challenge")),
        (.forwardingNotAllowed, .forwardingNotAllowed),
        (.confirmationRequired, .confirmationRequired),
        (.tooManyCertificates(limit: 16), .tooManyCertificates(limit: 16)),
        (.invalidCertificate, .invalidParameter("certificate")),
    ]

    /// What the client makes of the door's reply for `error`.
    private func roundTrip(_ error: VaultError) throws -> (name: String, decoded: PinVaultError) {
        let buffer = ReplyBuffer()
        error.appendVarlinkReply(to: buffer)
        var bytes = buffer.copyBytes()
        XCTAssertEqual(bytes.removeLast(), 0, "a reply ends with its NUL")
        return try bytes.withUnsafeBytes { raw in
            let reply = try VarlinkReplyMessage.parse(raw)
            let name = try XCTUnwrap(reply.error)
            return (name, PinVaultError(replyError: name, parameters: reply.parameters))
        }
    }

    func testEveryEngineError_arrivesAtTheClientAsItself() throws {
        for (error, expected) in table {
            XCTAssertEqual(try roundTrip(error).decoded, expected, "\(error)")
        }
    }

    func testTheTable_coversEveryErrorTheInterfaceDeclares() throws {
        let names = try Set(table.map { try roundTrip($0.0).name }.compactMap(VaultErrorName.init(qualifiedName:)))
        XCTAssertEqual(names, Set(VaultErrorName.allCases))
    }

    func testEveryDeclaredError_hasAClientCode() {
        let known = Set(PinVaultError.Code.known.map(\.description))
        for name in VaultErrorName.allCases {
            XCTAssertTrue(known.contains(name.qualifiedName), name.rawValue)
        }
    }
}
