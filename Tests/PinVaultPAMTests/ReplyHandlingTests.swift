import Foundation
import PinVaultCrypto
import PinVaultTestKit
import XCTest

/// What the module makes of each answer a daemon can give, with a scripted daemon
/// (root, so trusted) holding a real Ed25519 key: every error's PAM result and
/// message, failedAttemptsCleared, forged or mismatched proofs, silence, and the
/// exact challenge it sends.
final class ReplyHandlingTests: PAMTestCase {
    /// The scripted daemon's credential.
    private struct Key: Sendable {
        let pair: SigningKeyPair
        let keyId: String
        var publicKey: String { Data(pair.publicKey).base64EncodedString() }

        init() throws {
            pair = try SigningKeyPair(algorithm: .ed25519, seed: try KeyAlgorithm.generateSeed())
            keyId = try KeyID(publicKey: pair.publicKey).hex
        }

        func sign(_ message: Data) throws -> String {
            Data(try message.withUnsafeBytes { try pair.sign($0) }).base64EncodedString()
        }
    }

    /// A daemon that lists `key` as the test user's credential labelled `login` (with no
    /// purpose, as a daemon before the third release lists it: legacy) and answers
    /// Authenticate with `answer(challenge)`, a reply's JSON text.
    private func scriptedDaemon(_ key: Key, answer: @escaping @Sendable (Data) throws -> ScriptedVarlinkServer.Action) throws -> ScriptedVarlinkServer {
        try scriptedDaemon(listing: [(key, "login", nil)], answer: answer)
    }

    /// A daemon that lists `credentials` (key, label, purpose: nil sends none) for the test user.
    private func scriptedDaemon(
        listing credentials: [(key: Key, label: String, purpose: String?)],
        answer: @escaping @Sendable (Data) throws -> ScriptedVarlinkServer.Action
    ) throws -> ScriptedVarlinkServer {
        let objects = credentials.map { credential in
            let purpose = credential.purpose.map { #""purpose":"\#($0)","# } ?? ""
            return """
                {"user":"\(user.name)","keyId":"\(credential.key.keyId)","label":"\(credential.label)",\(purpose)\
                "publicKey":"\(credential.key.publicKey)","ownerUid":\(user.uid),"createdAt":"2026-01-01T00:00:00Z","lastUsedAt":null,\
                "failedAttempts":0,"remainingAttempts":10,"state":"active","lockedUntil":null,"unregistrationExpiresAt":null}
                """
        }
        let list = #"{"parameters":{"credentials":["# + objects.joined(separator: ",") + "]}}"
        return try ScriptedVarlinkServer { frame in
            guard let call = try? JSONSerialization.jsonObject(with: Data(frame)) as? [String: Any],
                  let method = call["method"] as? String else { return .close }
            if method.hasSuffix(".List") { return ScriptedVarlinkServer.reply(list) }
            let parameters = call["parameters"] as? [String: Any]
            let challenge = Data(base64Encoded: parameters?["challenge"] as? String ?? "") ?? Data()
            return (try? answer(challenge)) ?? .close
        }
    }

    private static func proof(_ key: Key, signing message: Data, extra: String = "") throws -> ScriptedVarlinkServer.Action {
        ScriptedVarlinkServer.reply("""
            {"parameters":{"keyId":"\(key.keyId)","publicKey":"\(key.publicKey)","signature":"\(try key.sign(message))",\
            "pinPolicyOutdated":false\(extra)}}
            """)
    }

    /// Which listed credential the module signs in with: login first, then a legacy one
    /// labelled login (or one a daemon before the third release lists without purpose);
    /// never authenticate or ssh. The keyId of the Authenticate call says which was used.
    func testTheCredentialUsed_isTheLoginOne_elseALegacyOneLabelledLogin() throws {
        let login = try Key(), legacy = try Key(), authenticate = try Key(), ssh = try Key()
        let cases: [(listing: [(key: Key, label: String, purpose: String?)], used: Key?)] = [
            ([(authenticate, "login", "authenticate"), (legacy, "login", "legacy"), (login, "laptop", "login")], login),
            ([(authenticate, "login", "authenticate"), (legacy, "login", "legacy")], legacy),
            ([(ssh, "login", "ssh"), (legacy, "login", nil)], legacy),
            ([(legacy, "work", "legacy")], nil),
            ([(authenticate, "login", "authenticate"), (ssh, "login", "ssh")], nil),
            ([(login, "login", "a-future-purpose")], nil),
        ]
        for (index, expected) in cases.enumerated() {
            let server = try scriptedDaemon(listing: expected.listing) { challenge in
                try Self.proof(expected.used ?? login, signing: challenge)
            }
            defer { server.stop() }
            let outcome = try pamtester(try onlyModule(socket: server.socketPath), input: pin + "\n")
            let calls = try server.received.map { try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]) }
            if let used = expected.used {
                XCTAssertTrue(outcome.succeeded, "case \(index): \(outcome)")
                XCTAssertEqual(calls.count, 2, "case \(index): List, then Authenticate")
                XCTAssertEqual((calls.last?["parameters"] as? [String: Any])?["keyId"] as? String, used.keyId, "case \(index)")
            } else {
                XCTAssertTrue(outcome.failed(with: PAMResult.userUnknown), "case \(index): \(outcome)")
                XCTAssertEqual(outcome.prompts, 0, "case \(index): \(outcome)")
                XCTAssertEqual(calls.count, 1, "case \(index): only List")
            }
        }
    }

    func testFailedAttemptsCleared_isToldAfterTheSignIn() throws {
        let key = try Key()
        for (cleared, message) in [(3, "3 wrong PINs were tried since your last sign-in"),
                                   (1, "1 wrong PIN was tried since your last sign-in")] {
            let server = try scriptedDaemon(key) { try Self.proof(key, signing: $0, extra: #","failedAttemptsCleared":\#(cleared)"#) }
            defer { server.stop() }
            let outcome = try pamtester(try onlyModule(socket: server.socketPath), input: pin + "\n")
            XCTAssertTrue(outcome.succeeded, outcome.description)
            XCTAssertTrue(outcome.output.contains(message), outcome.description)
        }
        let quiet = try scriptedDaemon(key) { try Self.proof(key, signing: $0, extra: #","failedAttemptsCleared":0"#) }
        defer { quiet.stop() }
        let outcome = try pamtester(try onlyModule(socket: quiet.socketPath), input: pin + "\n")
        XCTAssertTrue(outcome.succeeded, outcome.description)
        XCTAssertFalse(outcome.output.contains("were tried"), outcome.description)
    }

    func testEveryDaemonAnswer_hasItsPAMResultAndMessage() throws {
        let key = try Key()
        func frame(_ json: String) -> [UInt8] { Array(json.utf8) + [0] }
        // The bytes the daemon sends (nil: it hangs up).
        let cases: [(reply: [UInt8]?, result: String, message: String?)] = [
            (frame(#"{"error":"io.pinvault.Vault.WrongPin","parameters":{"remainingAttempts":2}}"#),
             PAMResult.authError, "Wrong PIN (2 attempts left)"),
            (frame(#"{"error":"io.pinvault.Vault.LockedOut","parameters":{"retryAfterSeconds":30}}"#),
             PAMResult.maxTries, "Too many wrong PINs: try again in 30 s"),
            (frame(#"{"error":"io.pinvault.Vault.CredentialBlocked","parameters":{}}"#),
             PAMResult.maxTries, "PIN blocked: ask an administrator"),
            (frame(#"{"error":"io.pinvault.Vault.CredentialWiped","parameters":{}}"#),
             PAMResult.maxTries, "Too many wrong PINs: the PIN sign-in was deleted"),
            (frame(#"{"error":"io.pinvault.Vault.NoSuchCredential","parameters":{}}"#),
             PAMResult.userUnknown, nil),
            (frame(#"{"error":"io.pinvault.Vault.Busy","parameters":{"retryAfterMilliseconds":100}}"#),
             PAMResult.authInfoUnavailable, nil),
            (frame(#"{"error":"io.pinvault.Vault.InternalError","parameters":{}}"#),
             PAMResult.authInfoUnavailable, nil),
            (frame(#"{"error":"io.pinvault.Vault.UnregistrationPending","parameters":{"expiresAt":"2026-01-01T00:00:00Z"}}"#),
             PAMResult.authInfoUnavailable, nil),
            (frame(#"{"error":"org.varlink.service.PermissionDenied","parameters":{}}"#),
             PAMResult.authInfoUnavailable, nil),
            (frame(#"{"parameters":{"keyId":"#), PAMResult.authInfoUnavailable, nil),
            (Array(repeating: UInt8(ascii: "x"), count: 70_000), PAMResult.authInfoUnavailable, nil),
            (nil, PAMResult.authInfoUnavailable, nil),
        ]
        for (index, expected) in cases.enumerated() {
            let reply = expected.reply
            let server = try scriptedDaemon(key) { _ in reply.map { .send($0) } ?? .close }
            defer { server.stop() }
            let outcome = try pamtester(try onlyModule(socket: server.socketPath), input: pin + "\n")
            XCTAssertTrue(outcome.failed(with: expected.result), "case \(index): \(outcome)")
            if let message = expected.message {
                XCTAssertTrue(outcome.output.contains(message), "case \(index): \(outcome)")
            }
            XCTAssertEqual(server.received.count, 2, "case \(index): List, then Authenticate")
        }
    }

    func testAProofThatDoesNotMatch_isAuthErr() throws {
        let key = try Key(), other = try Key()
        let answers: [@Sendable (Data) throws -> ScriptedVarlinkServer.Action] = [
            // Signed over another challenge.
            { challenge in try Self.proof(key, signing: challenge + Data([0])) },
            // Signed by another key, which the reply names.
            { challenge in try Self.proof(other, signing: challenge) },
            // Signed by another key, the listed key named.
            { challenge in ScriptedVarlinkServer.reply("""
                {"parameters":{"keyId":"\(key.keyId)","publicKey":"\(key.publicKey)","signature":"\(try other.sign(challenge))",\
                "pinPolicyOutdated":false}}
                """) },
        ]
        for (index, answer) in answers.enumerated() {
            let server = try scriptedDaemon(key, answer: answer)
            defer { server.stop() }
            let outcome = try pamtester(try onlyModule(socket: server.socketPath), input: pin + "\n")
            XCTAssertTrue(outcome.failed(with: PAMResult.authError), "case \(index): \(outcome)")
        }
    }

    func testASilentDaemon_isAuthInfoUnavailable_withinTheTimeout() throws {
        let key = try Key()
        let silentList = try ScriptedVarlinkServer { _ in .silence }
        defer { silentList.stop() }
        var started = Date()
        let list = try pamtester(try onlyModule(["timeout=2"], socket: silentList.socketPath), input: pin + "\n")
        XCTAssertTrue(list.failed(with: PAMResult.authInfoUnavailable), list.description)
        XCTAssertLessThan(Date().timeIntervalSince(started), 8)

        let silentAuthenticate = try scriptedDaemon(key) { _ in .silence }
        defer { silentAuthenticate.stop() }
        started = Date()
        let authenticate = try pamtester(try onlyModule(["timeout=2"], socket: silentAuthenticate.socketPath), input: pin + "\n")
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertTrue(authenticate.failed(with: PAMResult.authInfoUnavailable), authenticate.description)
        XCTAssertGreaterThan(elapsed, 1.5, "waited for the answer")
        XCTAssertLessThan(elapsed, 8, "but not longer than timeout=2 allows")
    }

    /// docs/PAM.md: "pam_pinvault v1" NUL service NUL user NUL, then 32 fresh random bytes.
    func testTheChallenge_namesModuleServiceAndUser_thenAFreshNonce() throws {
        let key = try Key()
        let server = try scriptedDaemon(key) { try Self.proof(key, signing: $0) }
        defer { server.stop() }
        let service = try onlyModule(socket: server.socketPath)
        XCTAssertTrue(try pamtester(service, input: pin + "\n").succeeded)
        XCTAssertTrue(try pamtester(service, input: pin + "\n").succeeded)
        let calls = try server.received.map { try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]) }
        XCTAssertEqual(calls.compactMap { $0["method"] as? String },
                       ["io.pinvault.Vault.List", "io.pinvault.Vault.Authenticate", "io.pinvault.Vault.List", "io.pinvault.Vault.Authenticate"])
        guard calls.count == 4 else { return }
        let context = Data("pam_pinvault v1\u{0}\(service.name)\u{0}\(user.name)\u{0}".utf8)
        var nonces: [Data] = []
        for call in [calls[1], calls[3]] {
            let parameters = try XCTUnwrap(call["parameters"] as? [String: Any])
            let challenge = try XCTUnwrap(Data(base64Encoded: parameters["challenge"] as? String ?? ""))
            XCTAssertEqual(challenge.count, context.count + 32)
            XCTAssertEqual(challenge.prefix(context.count), context)
            nonces.append(challenge.suffix(32))
            XCTAssertEqual(parameters["keyId"] as? String, key.keyId)
            XCTAssertEqual(parameters["user"] as? String, user.name)
            XCTAssertEqual(parameters["pin"] as? String, pin)
            XCTAssertEqual((parameters["ownerUid"] as? NSNumber)?.uint32Value, user.uid)
        }
        XCTAssertNotEqual(nonces[0], nonces[1], "a fresh nonce per sign-in")
        XCTAssertEqual((calls[0]["parameters"] as? [String: Any])?["ownerUid"] as? NSNumber, NSNumber(value: user.uid))
    }
}
