import Foundation
import PinVaultClient
import PinVaultProtocol
import PinVaultTestKit
import XCTest

/// Replies carrying the interface's types, as canned frames: the client decodes them with
/// the models generated from the interface file. A field of the wrong type or a required
/// one missing is a `.protocolError` naming it, as before the models were generated; a
/// member the interface does not declare is ignored, and the fields older daemons left
/// out read as what their absence meant.
final class ModelReplyTests: XCTestCase {
    /// A `Credential` object as today's daemon writes it, every optional field but
    /// `label` left out.
    private static let credential = #"{"user":"alice","keyId":"00112233445566778899aabbccddeeff","label":"bank","#
        + #""purpose":"ssh","algorithm":"ed25519","publicKey":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=","#
        + #""ownerUid":1000,"createdAt":"2026-01-01T00:00:00Z","failedAttempts":2,"remainingAttempts":8,"#
        + #""state":"active"}"#

    private func list(replying credential: String) async throws -> [Credential] {
        let server = try ScriptedVarlinkServer { _ in
            ScriptedVarlinkServer.reply(#"{"parameters":{"credentials":["# + credential + "]}}")
        }
        defer { server.stop() }
        let client = try PinVaultClient(socketPath: server.socketPath)
        return try await client.list()
    }

    func testList_decodesEveryFieldTheDaemonSends() async throws {
        let listed = try await list(replying: Self.credential)
        XCTAssertEqual(listed, [Credential(
            user: "alice", keyId: "00112233445566778899aabbccddeeff", label: "bank", purpose: .ssh, algorithm: .ed25519,
            publicKey: Array(0..<32), ownerUid: 1000, createdAt: VaultTime(unixSeconds: 1_767_225_600),
            failedAttempts: 2, remainingAttempts: 8, state: .active
        )])
        XCTAssertEqual(listed.first?.createdAt.date, Date(timeIntervalSince1970: 1_767_225_600))
    }

    func testAFieldOfTheWrongType_orMissing_isAProtocolErrorNamingIt() async throws {
        let cases: [(String, String)] = [
            (Self.credential.replacing(#""failedAttempts":2"#, with: #""failedAttempts":"2""#),
             #"the reply's "failedAttempts" is of the wrong type"#),
            (Self.credential.replacing(#""label":"bank""#, with: #""label":["bank"]"#),
             #"the reply's "label" is of the wrong type"#),
            (Self.credential.replacing(#","state":"active""#, with: ""), #"the reply's "state" is missing"#),
            (Self.credential.replacing(#""active""#, with: #""asleep""#), #"the reply's "state" is malformed"#),
        ]
        for (credential, message) in cases {
            await XCTAssertThrowsPinVaultError(.protocolError(message)) {
                try await self.list(replying: credential)
            }
        }
    }

    func testAMemberTheInterfaceDoesNotDeclare_isIgnored() async throws {
        let newer = Self.credential.replacing(#""state":"active""#, with: #""state":"active","colour":{"name":"blue"}"#)
        let listed = try await list(replying: newer)
        let expected = try await list(replying: Self.credential)
        XCTAssertEqual(listed, expected)
    }

    /// A daemon of the second release sends neither purpose nor algorithm.
    func testACredentialOfAnOlderDaemon_isLegacy_andEd25519() async throws {
        let older = Self.credential.replacing(#""purpose":"ssh","algorithm":"ed25519","#, with: "")
        let listed = try await list(replying: older)
        XCTAssertEqual(listed.first?.purpose, .legacy)
        XCTAssertEqual(listed.first?.algorithm, .ed25519)
    }

    /// Passkeys too: a field of the wrong type names that field.
    func testAPasskeyWithAFieldOfTheWrongType_isAProtocolErrorNamingIt() async throws {
        let passkey = #"{"credentialId":"AAECAwQFBgcICQoLDA0ODw==","rpId":"example.org","userHandle":"AQID","#
            + #""algorithm":"p256","createdAt":"2026-01-01T00:00:00Z"}"#
        func passkeys(_ object: String) async throws -> [Passkey] {
            let server = try ScriptedVarlinkServer { _ in ScriptedVarlinkServer.reply(#"{"parameters":{"passkeys":["# + object + "]}}") }
            defer { server.stop() }
            return try await PinVaultClient(socketPath: server.socketPath).passkeys()
        }
        let listed = try await passkeys(passkey)
        XCTAssertEqual(listed.first?.rpId, "example.org")
        XCTAssertEqual(listed.first?.credentialId, Array(0..<16))
        XCTAssertEqual(listed.first?.createdAt.unixSeconds, 1_767_225_600)
        await XCTAssertThrowsPinVaultError(.protocolError(#"the reply's "rpId" is of the wrong type"#)) {
            try await passkeys(passkey.replacing(#""example.org""#, with: "7"))
        }
    }
}
