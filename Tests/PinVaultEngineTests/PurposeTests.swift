import PinVaultCore
import PinVaultCrypto
import PinVaultSSHProtocol
import XCTest

@testable import PinVaultEngine

/// Purposes through the engine's requests: a use a key's purpose does not serve, or a
/// message its door may not sign, is refused before its PIN is counted or any KDF runs,
/// and a user's credentials are told apart by what the call may use.
final class PurposeTests: XCTestCase {
    private let pin = "258046"
    private let wrong = "370591"

    private func fixture() throws -> EngineFixture {
        try EngineFixture(lockout: LockoutPolicy(throttleAfter: 5, maxAttempts: 10, onMaxAttempts: .block))
    }

    private func userauth(_ f: EngineFixture, _ keyId: KeyID) throws -> [UInt8] {
        let key = try XCTUnwrap(try f.record(keyId)).publicKey
        return SSHSignedData.UserauthRequest(
            sessionIdentifier: [UInt8](repeating: 7, count: 32), user: Array("alice".utf8),
            service: Array("ssh-connection".utf8), method: Array("publickey".utf8), algorithm: Array("ssh-ed25519".utf8),
            keyBlob: SSHKey(algorithm: .ed25519, publicKey: key).blob, hostKeyBlob: nil
        ).encoded
    }

    private func authenticate(_ f: EngineFixture, _ keyId: KeyID?, pin: String, challenge: [UInt8]) throws -> Result<VaultResult, VaultError> {
        f.submit(.authenticate(user: "alice", keyId: keyId, pin: try f.secret(pin), challenge: challenge, ownerUid: nil))
    }

    func testRegister_recordsThePurpose_andRefusesLegacy() throws {
        let f = try fixture()
        for purpose in KeyPurpose.registrable {
            let keyId = try f.register(user: "alice", pin: pin, label: purpose.rawValue, purpose: purpose)
            XCTAssertEqual(try f.record(keyId)?.purpose, purpose)
            XCTAssertEqual(try f.record(keyId)?.sealed.header.formatVersion, 3)
        }
        let legacy = f.submit(.register(user: "alice", pin: try f.secret(pin), label: nil, purpose: .legacy))
        XCTAssertEqual(legacy.failure, .wrongPurpose(.legacy))
    }

    /// An ssh key through Authenticate: WrongPurpose, even with a wrong PIN — nothing
    /// counted, no KDF run.
    func testAuthenticate_withAnSSHKey_isWrongPurpose_beforeThePin() throws {
        let f = try fixture()
        let keyId = try f.register(user: "alice", pin: pin, purpose: .ssh)
        let evaluations = f.kdfEvaluations
        XCTAssertEqual(try authenticate(f, keyId, pin: wrong, challenge: Array("challenge".utf8)).failure, .wrongPurpose(.ssh))
        XCTAssertEqual(try authenticate(f, keyId, pin: pin, challenge: Array("challenge".utf8)).failure, .wrongPurpose(.ssh))
        XCTAssertEqual(f.kdfEvaluations, evaluations, "a KDF ran for a key of the wrong purpose")
        XCTAssertEqual(try f.record(keyId)?.failedAttempts, 0)
    }

    /// The attack the review found: a relying party's challenge that is a login request
    /// for the user's own ssh key. Refused for the app's key too, uncounted.
    func testAuthenticate_ofALoginRequest_isRefused_uncounted_withoutAKDF() throws {
        let f = try fixture()
        let app = try f.register(user: "alice", pin: pin, label: "app")
        let ssh = try f.register(user: "alice", pin: pin, label: "ssh", purpose: .ssh)
        let evaluations = f.kdfEvaluations
        for challenge in [try userauth(f, ssh), try userauth(f, app)] {
            XCTAssertEqual(try authenticate(f, app, pin: wrong, challenge: challenge).failure, .invalidChallenge)
            XCTAssertEqual(try authenticate(f, app, pin: pin, challenge: challenge).failure, .invalidChallenge)
        }
        XCTAssertEqual(f.kdfEvaluations, evaluations)
        XCTAssertEqual(try f.record(app)?.failedAttempts, 0)
    }

    /// Without a key id, the call uses the user's one credential it may use.
    func testWithoutAKeyId_theOneCredentialTheCallMayUse_isChosen() throws {
        let f = try fixture()
        let app = try f.register(user: "alice", pin: pin, label: "app")
        let ssh = try f.register(user: "alice", pin: pin, label: "ssh", purpose: .ssh)
        guard case .success(.authenticated(let signedBy, _, _, _, _)) = try authenticate(f, nil, pin: pin, challenge: [1]) else {
            return XCTFail("Authenticate did not choose the app's key")
        }
        XCTAssertEqual(signedBy, app)
        // Unlock serves both: which one is meant must be said.
        let unlocked = f.submit(.unlock(user: "alice", keyId: nil, pin: try f.secret(pin), ttlSeconds: 60, boundConnection: nil))
        guard case .ambiguousCredential(let keyIds) = unlocked.failure else { return XCTFail("\(unlocked)") }
        XCTAssertEqual(Set(keyIds), [app, ssh])
    }

    func testWithoutAKeyId_aUserWithOnlyKeysOfOtherPurposes_hearsWhichPurpose() throws {
        let f = try fixture()
        _ = try f.register(user: "alice", pin: pin, purpose: .ssh)
        XCTAssertEqual(try authenticate(f, nil, pin: pin, challenge: [1]).failure, .wrongPurpose(.ssh))
    }

    /// Sessions keep the purpose: Sign refuses an unlocked ssh key, the agent an
    /// unlocked app key, and each signs what it is for.
    func testSessions_signOnlyThroughTheDoorsTheirPurposeServes() throws {
        let f = try fixture()
        let app = try f.register(user: "alice", pin: pin, label: "app")
        let ssh = try f.register(user: "alice", pin: pin, label: "ssh", purpose: .ssh)
        for keyId in [app, ssh] {
            let unlocked = f.submit(.unlock(user: "alice", keyId: keyId, pin: try f.secret(pin), ttlSeconds: 60, boundConnection: nil))
            guard case .success = unlocked else { return XCTFail("\(unlocked)") }
        }
        let login = try userauth(f, ssh)
        XCTAssertEqual(f.submit(VaultRequest.sign(keyId: ssh, message: [1], access: .sign)).failure, .wrongPurpose(.ssh))
        XCTAssertEqual(f.submit(VaultRequest.sign(keyId: app, message: try userauth(f, app), access: .sshAgent)).failure, .wrongPurpose(.authenticate))
        XCTAssertEqual(f.submit(VaultRequest.sign(keyId: ssh, message: [1], access: .sshAgent)).failure, .invalidChallenge)
        XCTAssertEqual(f.submit(VaultRequest.sign(keyId: app, message: login, access: .sign)).failure, .invalidChallenge)
        guard case .success(.signature) = f.submit(VaultRequest.sign(keyId: ssh, message: login, access: .sshAgent)) else { return XCTFail() }
        guard case .success(.signature) = f.submit(VaultRequest.sign(keyId: app, message: [1], access: .sign)) else { return XCTFail() }
        guard case .success(.unlockedKeys(let offered)) = f.submit(VaultRequest.unlockedKeys(access: .sshAgent)) else { return XCTFail() }
        XCTAssertEqual(offered.map(\.keyId), [ssh], "the agent offers the ssh key alone")
    }

    func testUnlock_ofALoginKey_isWrongPurpose_uncounted() throws {
        let f = try fixture()
        let keyId = try f.register(user: "alice", pin: pin, purpose: .login)
        let unlocked = f.submit(.unlock(user: "alice", keyId: keyId, pin: try f.secret(wrong), ttlSeconds: 60, boundConnection: nil))
        XCTAssertEqual(unlocked.failure, .wrongPurpose(.login))
        XCTAssertEqual(try f.record(keyId)?.failedAttempts, 0)
    }

    /// ChangePin keeps the purpose (and the format that holds it).
    func testChangePin_keepsThePurpose() throws {
        let f = try fixture()
        let keyId = try f.register(user: "alice", pin: pin, purpose: .login)
        let changed = f.submit(.changePin(user: "alice", keyId: keyId, currentPin: try f.secret(pin), newPin: try f.secret("493027")))
        guard case .success(.pinChanged(let view, _)) = changed else { return XCTFail("\(changed)") }
        XCTAssertEqual(view.purpose, .login)
        XCTAssertEqual(try f.record(keyId)?.sealed.header.formatVersion, 3)
    }
}
