import PinVaultCore
import PinVaultCrypto
import PinVaultStore
import XCTest

@testable import PinVaultEngine

/// The authenticator credential (purpose `webauthn`): one per uid, sealed under what CTAP
/// sends for its PIN, LEFT(SHA-256(PIN), 16), while every Varlink door that takes its
/// PIN takes the PIN itself; no door but the passkey door uses its key.
final class SecurityKeyCredentialTests: XCTestCase {
    private let pin = "258046"
    private let newPin = "604913"
    private let wrong = "370591"

    private func fixture() throws -> EngineFixture {
        try EngineFixture(lockout: LockoutPolicy(throttleAfter: 5, maxAttempts: 10, onMaxAttempts: .block))
    }

    func testRegister_sealsUnderTheSecurityKeyPinHash_notThePin() throws {
        let f = try fixture()
        let keyId = try f.register(user: "alice", pin: pin, purpose: .webauthn)
        let record = try XCTUnwrap(try f.record(keyId))
        XCTAssertEqual(record.purpose, .webauthn)
        XCTAssertNoThrow(try SeedSealer.open(record.sealed, pin: SecurityKeyPin.hash(f.secret(pin)), pepper: f.pepper))
        XCTAssertThrowsError(try SeedSealer.open(record.sealed, pin: f.secret(pin), pepper: f.pepper))
    }

    func testOneSecurityKeyPerUid() throws {
        let f = try fixture()
        _ = try f.register(user: "alice", pin: pin, purpose: .webauthn)
        for user in ["alice", "bob"] {
            let second = f.submit(.register(user: user, pin: try f.secret(pin), label: nil, purpose: .webauthn))
            XCTAssertEqual(second.failure, .tooManyCredentials(limit: 1), user)
        }
        XCTAssertNoThrow(try f.register(user: "alice", pin: pin, purpose: .authenticate), "other purposes beside it")
        XCTAssertNoThrow(try f.register(
            user: "alice", pin: pin, purpose: .webauthn, as: Caller(uid: 1001, pid: 1, isAdmin: false)), "another uid's own")
    }

    func testThePolicy_appliesToThePinItself() throws {
        let f = try fixture()
        let weak = f.submit(.register(user: "alice", pin: try f.secret("123456"), label: nil, purpose: .webauthn))
        guard case .pinPolicyViolation = weak.failure else { return XCTFail("\(weak)") }
    }

    func testVarlinksKeyDoors_refuseIt_beforeThePin() throws {
        let f = try fixture()
        let keyId = try f.register(user: "alice", pin: pin, purpose: .webauthn)
        let evaluations = f.kdfEvaluations
        for candidate in [pin, wrong] {
            let authenticate = f.submit(.authenticate(
                user: "alice", keyId: keyId, pin: try f.secret(candidate), challenge: Array("challenge".utf8), ownerUid: nil))
            XCTAssertEqual(authenticate.failure, .wrongPurpose(.webauthn))
            let unlock = f.submit(.unlock(user: "alice", keyId: keyId, pin: try f.secret(candidate), ttlSeconds: 60, boundConnection: nil))
            XCTAssertEqual(unlock.failure, .wrongPurpose(.webauthn))
        }
        XCTAssertEqual(f.kdfEvaluations, evaluations)
        XCTAssertEqual(try f.record(keyId)?.failedAttempts, 0)
    }

    /// ChangePin through Varlink takes both PINs themselves: the current one is hashed
    /// for the check, the new one for the seal; a wrong one counts as any wrong PIN.
    func testChangePin_takesThePinsThemselves() throws {
        let f = try fixture()
        let keyId = try f.register(user: "alice", pin: pin, purpose: .webauthn)
        let refused = f.submit(.changePin(user: "alice", keyId: keyId, currentPin: try f.secret(wrong), newPin: try f.secret(newPin)))
        guard case .wrongPin = refused.failure else { return XCTFail("\(refused)") }
        XCTAssertEqual(try f.record(keyId)?.failedAttempts, 1)
        let changed = f.submit(.changePin(user: "alice", keyId: keyId, currentPin: try f.secret(pin), newPin: try f.secret(newPin)))
        guard case .success(.pinChanged) = changed else { return XCTFail("\(changed)") }
        let record = try XCTUnwrap(try f.record(keyId))
        XCTAssertEqual(record.failedAttempts, 0)
        XCTAssertNoThrow(try SeedSealer.open(record.sealed, pin: SecurityKeyPin.hash(f.secret(newPin)), pepper: f.pepper))
        let begin = f.submit(.beginUnregister(user: "alice", keyId: keyId, pin: try f.secret(newPin)))
        guard case .success = begin else { return XCTFail("\(begin)") }
    }
}
