import Foundation
import PinVaultClient
import PinVaultTestKit
import XCTest

/// Every error name the interface declares, and the `org.varlink.service` ones, sent as
/// canned replies: each maps to its typed case with its parameters; an unknown name is
/// a protocol error that names it.
final class ErrorMappingTests: XCTestCase {
    /// The error `client.getPolicy()` throws when the server answers `reply`.
    private func error(forReply reply: String) async throws -> PinVaultError? {
        let server = try ScriptedVarlinkServer { _ in ScriptedVarlinkServer.reply(reply) }
        defer { server.stop() }
        let client = try PinVaultClient(socketPath: server.socketPath)
        return await thrownError { try await client.getPolicy() }
    }

    func testEveryVaultError_mapsToItsCase_withItsParameters() async throws {
        let cases: [(String, PinVaultError)] = [
            (#"{"error":"io.pinvault.Vault.WrongPin","parameters":{"remainingAttempts":7}}"#, .wrongPin(remainingAttempts: 7)),
            (#"{"error":"io.pinvault.Vault.LockedOut","parameters":{"retryAfterSeconds":30}}"#, .lockedOut(retryAfter: .seconds(30))),
            (#"{"error":"io.pinvault.Vault.CredentialBlocked","parameters":{}}"#, .credentialBlocked),
            (#"{"error":"io.pinvault.Vault.CredentialWiped"}"#, .credentialWiped),
            (#"{"error":"io.pinvault.Vault.PinPolicyViolation","parameters":{"violations":["tooShort","futureRule"]}}"#,
             .pinPolicyViolation([.tooShort, PinViolation(rawValue: "futureRule")])),
            (#"{"error":"io.pinvault.Vault.NoSuchCredential","parameters":{}}"#, .noSuchCredential),
            (#"{"error":"io.pinvault.Vault.AmbiguousCredential","parameters":{"keyIds":["a","b"]}}"#, .ambiguousCredential(keyIds: ["a", "b"])),
            (#"{"error":"io.pinvault.Vault.TooManyCredentials","parameters":{"limit":8}}"#, .tooManyCredentials(limit: 8)),
            (#"{"error":"io.pinvault.Vault.UnregistrationPending","parameters":{"expiresAt":"2026-01-31T12:00:00Z"}}"#,
             .unregistrationPending(expiresAt: Date(timeIntervalSince1970: 1_769_860_800))),
            (#"{"error":"io.pinvault.Vault.InvalidToken","parameters":{}}"#, .invalidToken),
            (#"{"error":"io.pinvault.Vault.Busy","parameters":{"retryAfterMilliseconds":250}}"#, .busy(retryAfter: .milliseconds(250))),
            (#"{"error":"io.pinvault.Vault.Conflict","parameters":{}}"#, .conflict),
            (#"{"error":"io.pinvault.Vault.ShuttingDown"}"#, .shuttingDown),
            (#"{"error":"io.pinvault.Vault.TooManySessions","parameters":{"limit":16}}"#, .tooManySessions(limit: 16)),
            (#"{"error":"io.pinvault.Vault.InternalError","parameters":{}}"#, .internalError),
        ]
        for (reply, expected) in cases {
            let error = try await error(forReply: reply)
            XCTAssertEqual(error, expected, reply)
        }
    }

    func testEveryVarlinkServiceError_mapsToItsCase_withItsParameter() async throws {
        let cases: [(String, PinVaultError)] = [
            (#"{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"user"}}"#, .invalidParameter("user")),
            (#"{"error":"org.varlink.service.PermissionDenied","parameters":{}}"#, .permissionDenied),
            (#"{"error":"org.varlink.service.MethodNotFound","parameters":{"method":"io.pinvault.Vault.GetPolicy"}}"#,
             .methodNotFound("io.pinvault.Vault.GetPolicy")),
            (#"{"error":"org.varlink.service.MethodNotImplemented","parameters":{"method":"io.pinvault.Vault.GetPolicy"}}"#,
             .methodNotFound("io.pinvault.Vault.GetPolicy")),
            (#"{"error":"org.varlink.service.InterfaceNotFound","parameters":{"interface":"io.pinvault.Vault"}}"#,
             .interfaceNotFound("io.pinvault.Vault")),
        ]
        for (reply, expected) in cases {
            let error = try await error(forReply: reply)
            XCTAssertEqual(error, expected, reply)
        }
    }

    func testAnUnknownErrorName_isProtocolError_namingIt() async throws {
        let error = try await error(forReply: #"{"error":"io.pinvault.Vault.SomethingNew","parameters":{}}"#)
        guard error?.code == .protocolError, let reason = error?.reason else { return XCTFail("got \(String(describing: error))") }
        XCTAssertTrue(reason.contains("io.pinvault.Vault.SomethingNew"), reason)
    }

    func testAKnownErrorWithMalformedParameters_isProtocolError_namingTheParameter() async throws {
        let error = try await error(forReply: #"{"error":"io.pinvault.Vault.WrongPin","parameters":{"remainingAttempts":"many"}}"#)
        guard error?.code == .protocolError, let reason = error?.reason else { return XCTFail("got \(String(describing: error))") }
        XCTAssertTrue(reason.contains("remainingAttempts"), reason)
    }

    func testAnErrorReply_leavesTheConnectionOpen() async throws {
        let server = try ScriptedVarlinkServer { frame in
            String(decoding: frame, as: UTF8.self).contains("CheckPin")
                ? ScriptedVarlinkServer.reply(#"{"error":"io.pinvault.Vault.Busy","parameters":{"retryAfterMilliseconds":5}}"#)
                : ScriptedVarlinkServer.reply(#"{"parameters":{"deletedCount":0}}"#)
        }
        defer { server.stop() }
        let client = try PinVaultClient(socketPath: server.socketPath)
        await XCTAssertThrowsPinVaultError(.busy(retryAfter: .milliseconds(5))) { try await client.checkPin(PIN("1")) }
        let deleted = try await client.resetEverything()
        XCTAssertEqual(deleted, 0)
    }

    func testDescriptions_areOneEnglishLine_withTheParametersButNoSecret() {
        let errors: [PinVaultError] = [
            .wrongPin(remainingAttempts: 1), .lockedOut(retryAfter: .milliseconds(1500)), .credentialBlocked, .credentialWiped,
            .pinPolicyViolation([.denyListed, .tooShort]), .noSuchCredential, .ambiguousCredential(keyIds: ["k1", "k2"]),
            .tooManyCredentials(limit: 8), .unregistrationPending(expiresAt: Date(timeIntervalSince1970: 1_769_860_800)),
            .invalidToken, .busy(retryAfter: .milliseconds(250)), .conflict, .shuttingDown, .tooManySessions(limit: 16),
            .internalError, .invalidParameter("user"), .permissionDenied,
            .methodNotFound("M"), .interfaceNotFound("I"), .daemonUnavailable(socketPath: "/run/x", errno: ENOENT),
            .untrustedServer(socketPath: "/run/x", uid: 1234), .connectionLost, .timedOut, .cancelled, .protocolError("why"), .pinConsumed,
        ]
        for error in errors {
            XCTAssertFalse(error.description.isEmpty)
            XCTAssertFalse(error.description.contains("\n"), error.description)
        }
        XCTAssertEqual(PinVaultError.wrongPin(remainingAttempts: 1).description, "wrong PIN (1 attempt left)")
        XCTAssertTrue(PinVaultError.lockedOut(retryAfter: .milliseconds(1500)).description.contains("2 s"))
        XCTAssertTrue(PinVaultError.pinPolicyViolation([.denyListed]).description.contains("the PIN is on the list of common PINs"))
        XCTAssertTrue(PinVaultError.unregistrationPending(expiresAt: Date(timeIntervalSince1970: 1_769_860_800)).description
            .contains("2026-01-31T12:00:00Z"))
        XCTAssertTrue(PinVaultError.daemonUnavailable(socketPath: "/run/x", errno: ENOENT).description.contains("/run/x"))
        XCTAssertTrue(PinViolation(rawValue: "futureRule").description.contains("futureRule"))
    }
}
