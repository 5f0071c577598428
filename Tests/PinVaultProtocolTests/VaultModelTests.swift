import PinVaultCrypto
@testable import PinVaultProtocol
import XCTest

final class VaultModelTests: XCTestCase {
    private let credential = VaultCredential(
        user: "alice@example.org", keyId: "00112233445566778899aabbccddeeff", label: "bank", purpose: .ssh,
        algorithm: .ed25519, publicKey: Array(0..<32), ownerUid: 1000, createdAt: VaultTime(unixSeconds: 1_767_225_600),
        lastUsedAt: VaultTime(unixSeconds: 2_200_000_000), failedAttempts: 2, remainingAttempts: 8, state: .throttled,
        lockedUntil: VaultTime(unixSeconds: 1_767_225_630), unregistrationExpiresAt: nil,
        unlockedUntil: VaultTime(unixSeconds: 1_767_229_200)
    )

    /// A value of each of the interface's types with every field set (optionals and lists
    /// too), by the type's name in the interface.
    private var everyFieldOfEveryType: [String: Sample] {
        var credential = credential
        credential.unregistrationExpiresAt = VaultTime(unixSeconds: 1_767_226_000)
        credential.sshCertificates = [[1, 2, 3], Array(repeating: 7, count: 40)]
        return [
            "Credential": Sample(credential, VaultCredential.init(from:)),
            "Passkey": Sample(VaultPasskey(
                credentialId: Array(0..<16), rpId: "example.org", userHandle: [9, 8, 7], userName: "alice",
                displayName: "Alice", algorithm: .p256, createdAt: VaultTime(unixSeconds: 1_767_225_600)
            ), VaultPasskey.init(from:)),
            "PinPolicy": Sample(VaultPinPolicy(
                minLength: 6, maxLength: 64, digitsOnly: true, maxIdenticalDigits: 3, allowSequences: false,
                denyListSize: 1000, throttleAfter: 5, maxAttempts: 10, onMaxAttempts: .wipe
            ), VaultPinPolicy.init(from:)),
            "Stats": Sample(VaultStats(
                requests: 10, authenticationsSucceeded: 4, authenticationsFailed: 2, lockouts: 1, kdfQueueDepth: 3,
                kdfRunning: 2, kdfEvaluations: 7, activeConnections: 5, uptimeSeconds: 3600
            ), VaultStats.init(from:)),
        ]
    }

    /// A model value, encoded by its `writeFields` and decoded by its `init(from:)`.
    private struct Sample {
        /// The JSON object `writeFields` writes.
        let encoded: String
        /// Whether decoding `encoded` gives the value back.
        let roundTrips: () throws -> Bool

        init<T: Equatable>(_ value: T, _ decode: @escaping (ParameterDecoder) throws(ParameterError) -> T) where T: WritesFields {
            let buffer = ReplyBuffer()
            JSONWriter.writeObject(into: buffer) { value.writeFields(&$0) }
            let encoded = text(of: buffer)
            self.encoded = encoded
            roundTrips = { try withParameters(encoded) { try decode($0) } == value }
        }
    }

    /// The `type`s the interface file declares, each with its field names in order.
    private var interfaceTypes: [(name: String, fields: [String])] {
        var types: [(name: String, fields: [String])] = []
        var inType = false
        for line in VaultInterface.description.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("type "), line.hasSuffix("(") {
                types.append((String(line.dropFirst(5).dropLast().trimmingCharacters(in: .whitespaces)), []))
                inType = true
            } else if line == ")" {
                inType = false
            } else if inType, !line.hasPrefix("#"), let colon = line.firstIndex(of: ":") {
                types[types.count - 1].fields.append(String(line[..<colon]))
            }
        }
        return types
    }

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

    /// The models are generated from the interface's `type`s: each type has one, which
    /// writes exactly the type's fields, in its order, and reads them back unchanged.
    func testEveryInterfaceType_hasAGeneratedModel_writingItsFields_thatRoundTrips() throws {
        let types = interfaceTypes
        XCTAssertEqual(types.map(\.name), ["Credential", "Passkey", "PinPolicy", "Stats"])
        let samples = everyFieldOfEveryType
        for type in types {
            guard let sample = samples[type.name] else {
                XCTFail("no sample of \(type.name): add one with every field set")
                continue
            }
            let written = try withParameters(sample.encoded) { $0.names }
            XCTAssertEqual(written, type.fields, type.name)
            XCTAssertTrue(try sample.roundTrips(), "\(type.name) did not round-trip: \(sample.encoded)")
        }
    }

    /// A member of the wrong JSON type, a required one missing and a value out of range
    /// each name the field; a member the interface does not declare (a newer daemon's)
    /// is ignored, as the client always did.
    func testDecoding_namesAWrongTypeMissingOrOutOfRangeField_andIgnoresAnUnknownOne() throws {
        let buffer = ReplyBuffer()
        JSONWriter.writeObject(into: buffer) { credential.writeFields(&$0) }
        let written = text(of: buffer)
        let cases: [(String, ParameterError)] = [
            (written.replacing(#""failedAttempts":2"#, with: #""failedAttempts":"2""#), ParameterError("failedAttempts", .wrongType)),
            (written.replacing(#""label":"bank""#, with: #""label":7"#), ParameterError("label", .wrongType)),
            (written.replacing(#""ownerUid":1000"#, with: #""ownerUid":1000.5"#), ParameterError("ownerUid", .wrongType)),
            (written.replacing(#""keyId":"00112233445566778899aabbccddeeff","#, with: ""), ParameterError("keyId", .missing)),
            (written.replacing(#""user":"alice@example.org""#, with: #""user":null"#), ParameterError("user", .missing)),
            (written.replacing(#""remainingAttempts":8"#, with: #""remainingAttempts":-1"#), ParameterError("remainingAttempts", .outOfRange)),
            (written.replacing(#""createdAt":"2026-01-01T00:00:00Z""#, with: #""createdAt":"2026-01-01 00:00:00Z""#), ParameterError("createdAt", .malformed)),
            (written.replacing(#"Hh8=""#, with: #"Hh9=""#), ParameterError("publicKey", .malformed)),  // not canonical
            (written.replacing(#""algorithm":"ed25519""#, with: #""algorithm":"p256""#), ParameterError("publicKey", .malformed)),
        ]
        for (text, expected) in cases {
            XCTAssertNotEqual(text, written, "the case for \(expected) changed nothing")
            try withParameters(text) { parameters in
                XCTAssertThrowsError(try VaultCredential(from: parameters), text) { error in
                    XCTAssertEqual(error as? ParameterError, expected, text)
                }
            }
        }
        let withAnUnknownMember = written.replacing(#""user":"#, with: #""colour":"blue","user":"#)
        XCTAssertEqual(try withParameters(withAnUnknownMember) { try VaultCredential(from: $0) }, credential)
    }

    /// Each field older daemons leave out decodes as what its absence meant then; any
    /// other required field's absence is an error.
    func testFieldsOlderDaemonsLeaveOut_readAsTheirOldMeaning() throws {
        let buffer = ReplyBuffer()
        JSONWriter.writeObject(into: buffer) { credential.writeFields(&$0) }
        let older = text(of: buffer).replacing(#""purpose":"ssh","algorithm":"ed25519","#, with: "")
        let decoded = try withParameters(older) { try VaultCredential(from: $0) }
        XCTAssertEqual(decoded.purpose, .legacy)
        XCTAssertEqual(decoded.algorithm, .ed25519)

        let stats = #"{"requests":1,"authenticationsSucceeded":2,"authenticationsFailed":3,"lockouts":4,"#
            + #""kdfQueueDepth":5,"kdfRunning":6,"activeConnections":7,"uptimeSeconds":8}"#
        XCTAssertEqual(try withParameters(stats) { try VaultStats(from: $0) }.kdfEvaluations, 0)
        try withParameters(stats.replacing(#""lockouts":4,"#, with: "")) { parameters in
            XCTAssertThrowsError(try VaultStats(from: parameters)) { error in
                XCTAssertEqual(error as? ParameterError, ParameterError("lockouts", .missing))
            }
        }
    }

    func testEnums_spellTheInterfaceFilesValues() {
        XCTAssertEqual(VaultCredential.State.allCases.map(\.rawValue), ["active", "throttled", "blocked", "pendingUnregistration"])
        XCTAssertEqual(VaultPinPolicy.OnMaxAttempts.allCases.map(\.rawValue), ["block", "wipe"])
        // The purposes are generated from the interface: PurposeInterfaceTests.
        XCTAssertTrue(VaultInterface.description.contains("state: (active, throttled, blocked, pendingUnregistration)"))
        XCTAssertTrue(VaultInterface.description.contains("onMaxAttempts: (block, wipe)"))
        XCTAssertTrue(VaultInterface.description.contains("algorithm: (ed25519, p256)"))
        // The interface's algorithm enum is held as KeyAlgorithm: the same values.
        XCTAssertEqual(KeyAlgorithm.allCases.map(\.rawValue), ["ed25519", "p256"])
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

/// The generated models' encoder, for `Sample`.
private protocol WritesFields {
    func writeFields(_ object: inout JSONObjectWriter)
}

extension VaultCredential: WritesFields {}
extension VaultPasskey: WritesFields {}
extension VaultPinPolicy: WritesFields {}
extension VaultStats: WritesFields {}
