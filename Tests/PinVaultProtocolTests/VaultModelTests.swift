import PinVaultCrypto
@testable import PinVaultProtocol
import XCTest

final class VaultModelTests: XCTestCase {
    private let credential = VaultCredential(
        user: "alice@example.org", keyId: "00112233445566778899aabbccddeeff", label: "bank", purpose: .ssh,
        publicKey: Array(0..<32), ownerUid: 1000, createdAt: 1_767_225_600, lastUsedAt: 2_200_000_000,
        failedAttempts: 2, remainingAttempts: 8, state: .throttled, lockedUntil: 1_767_225_630,
        unregistrationExpiresAt: nil, unlockedUntil: 1_767_229_200
    )

    private func reparse<T>(_ write: (inout JSONObjectWriter) -> Void, _ read: (ParameterDecoder) throws -> T) throws -> T {
        let buffer = ReplyBuffer()
        JSONWriter.writeObject(into: buffer, write)
        return try withDocument(bytes: buffer.copyBytes()) { document in
            try read(ParameterDecoder(document: document, object: document.root))
        }
    }

    func testCredential_encodesEveryFieldOfTheInterfaceType() {
        let buffer = ReplyBuffer()
        JSONWriter.writeObject(into: buffer) { credential.writeFields(&$0) }
        XCTAssertEqual(
            text(of: buffer),
            #"{"user":"alice@example.org","keyId":"00112233445566778899aabbccddeeff","label":"bank","#
                + #""purpose":"ssh","algorithm":"ed25519","publicKey":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=","ownerUid":1000,"#
                + #""createdAt":"2026-01-01T00:00:00Z","lastUsedAt":"2039-09-18T23:06:40Z","failedAttempts":2,"#
                + #""remainingAttempts":8,"state":"throttled","lockedUntil":"2026-01-01T00:00:30Z","#
                + #""unlockedUntil":"2026-01-01T01:00:00Z"}"#
        )
    }

    func testCredential_roundTripsThroughJSON() throws {
        let decoded = try reparse({ credential.writeFields(&$0) }, { try VaultCredential(from: $0) })
        XCTAssertEqual(decoded, credential)
    }

    func testCredential_withABadState_namesTheField() throws {
        let buffer = ReplyBuffer()
        JSONWriter.writeObject(into: buffer) { credential.writeFields(&$0) }
        let text = text(of: buffer).replacing("\"throttled\"", with: "\"asleep\"")
        try withParameters(text) { parameters in
            XCTAssertThrowsError(try VaultCredential(from: parameters)) { error in
                XCTAssertEqual(error as? ParameterError, ParameterError("state", .malformed))
            }
        }
    }

    /// A daemon of the second release sends no purpose: its credentials are legacy.
    func testCredential_withoutAPurpose_isLegacy_andWithAnUnknownOne_namesTheField() throws {
        let buffer = ReplyBuffer()
        JSONWriter.writeObject(into: buffer) { credential.writeFields(&$0) }
        let written = text(of: buffer)
        try withParameters(written.replacing(#""purpose":"ssh","#, with: "")) { parameters in
            XCTAssertEqual(try VaultCredential(from: parameters).purpose, .legacy)
        }
        try withParameters(written.replacing(#""ssh""#, with: #""smtp""#)) { parameters in
            XCTAssertThrowsError(try VaultCredential(from: parameters)) { error in
                XCTAssertEqual(error as? ParameterError, ParameterError("purpose", .malformed))
            }
        }
    }

    func testPinPolicy_roundTripsThroughJSON() throws {
        let policy = VaultPinPolicy(
            minLength: 6, maxLength: 64, digitsOnly: true, maxIdenticalDigits: 3, allowSequences: false,
            denyListSize: 1000, throttleAfter: 5, maxAttempts: 10, onMaxAttempts: .wipe
        )
        XCTAssertEqual(try reparse({ policy.writeFields(&$0) }, { try VaultPinPolicy(from: $0) }), policy)
    }

    func testStats_roundTripsThroughJSON() throws {
        let stats = VaultStats(
            requests: 10, authenticationsSucceeded: 4, authenticationsFailed: 2, lockouts: 1, kdfQueueDepth: 3,
            kdfRunning: 2, activeConnections: 5, uptimeSeconds: 3600
        )
        XCTAssertEqual(try reparse({ stats.writeFields(&$0) }, { try VaultStats(from: $0) }), stats)
    }

    func testEnums_spellTheInterfaceFilesValues() {
        XCTAssertEqual(VaultCredential.State.allCases.map(\.rawValue), ["active", "throttled", "blocked", "pendingUnregistration"])
        XCTAssertEqual(VaultPinPolicy.OnMaxAttempts.allCases.map(\.rawValue), ["block", "wipe"])
        // The purposes are generated from the interface: PurposeInterfaceTests.
        XCTAssertTrue(VaultInterface.description.contains("state: (active, throttled, blocked, pendingUnregistration)"))
        XCTAssertTrue(VaultInterface.description.contains("onMaxAttempts: (block, wipe)"))
        XCTAssertTrue(VaultInterface.description.contains("algorithm: (ed25519, p256)"))
    }

    func testMethodNames_areQualifiedWithTheInterface() {
        XCTAssertEqual(
            VaultMethod.allCases.count, 22,
            "13 of the first release, Unlock, Lock, Sign, AgentSign, AddSSHCertificate, RemoveSSHCertificate, SignDigest, "
                + "ListPasskeys, RemovePasskey"
        )
        XCTAssertEqual(VaultMethod.authenticate.qualifiedName, "io.pinvault.Vault.Authenticate")
        XCTAssertEqual(
            VaultErrorName.allCases.count, 21,
            "the 11 errors of the first release, InternalError, NotUnlocked, WrongPurpose, ForwardingNotAllowed, "
                + "ConfirmationRequired, TooManyCertificates, Conflict, ShuttingDown, TooManySessions, UnblockRefused"
        )
        XCTAssertEqual(VaultErrorName(qualifiedName: "io.pinvault.Vault.WrongPin"), .wrongPin)
        XCTAssertNil(VaultErrorName(qualifiedName: "org.varlink.service.WrongPin"))
    }
}
