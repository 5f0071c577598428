import PinVaultCore
import PinVaultCrypto
import PinVaultStore
import XCTest

@testable import PinVaultEngine

/// The security key's engine half: the PIN's hash checked as every PIN is (counted
/// durably first; the retries CTAP shows are the remaining attempts), a token bound to
/// its channel, its permissions and relying party, whose first use is the user's
/// presence; passkeys made and asserted under it, verified here with the public key.
final class SecurityKeyTests: XCTestCase {
    private let pin = "258046"
    private let wrong = "370591"
    private let channel: UInt64 = 7
    private let clientDataHash = [UInt8](repeating: 0xcd, count: 32)

    private func fixture() throws -> EngineFixture {
        try EngineFixture(lockout: LockoutPolicy(throttleAfter: 5, maxAttempts: 8, onMaxAttempts: .block))
    }

    private func hash(_ f: EngineFixture, _ text: String) throws -> SecretBytes {
        try SecurityKeyPin.hash(f.secret(text))
    }

    private func token(
        _ f: EngineFixture, _ text: String, channel: UInt64? = nil, permissions: UInt8 = 0x03, rpId: String? = nil
    ) throws -> Result<VaultResult, VaultError> {
        f.submit(.securityKeyToken(pinHash: try hash(f, text), channel: channel ?? self.channel, permissions: permissions, rpId: rpId))
    }

    private func retries(_ f: EngineFixture) -> Int? {
        if case .success(.securityKeyRetries(let remaining)) = f.submit(.securityKeyRetries) { return remaining }
        return nil
    }

    private func make(_ f: EngineFixture, rp: String = "example.com", algorithm: KeyAlgorithm = .p256) -> Result<VaultResult, VaultError> {
        f.submit(.makePasskey(
            channel: channel, rpId: rp, userHandle: [1, 2, 3], userName: "alice", displayName: "Alice", algorithm: algorithm,
            clientDataHash: clientDataHash))
    }

    private func assert(_ f: EngineFixture, rp: String = "example.com", presence: Bool = false) -> Result<VaultResult, VaultError> {
        f.submit(.passkeyAssertions(channel: channel, rpId: rp, allowList: nil, clientDataHash: clientDataHash, presence: presence))
    }

    private func verifies(_ algorithm: KeyAlgorithm, _ publicKey: [UInt8], _ authenticatorData: [UInt8], _ signature: [UInt8]) -> Bool {
        (authenticatorData + clientDataHash).withUnsafeBytes { algorithm.verify(signature: signature, message: $0, publicKey: publicKey) }
    }

    func testAWrongPin_isCountedDurably_andShownAsTheRetries() throws {
        let f = try fixture()
        XCTAssertEqual(f.submit(.securityKeyRetries).failure, .noSuchCredential, "no PIN set")
        let keyId = try f.register(user: "alice", pin: pin, purpose: .webauthn)
        XCTAssertEqual(retries(f), 8)
        XCTAssertEqual(try token(f, wrong).failure, .wrongPin(remainingAttempts: 7))
        XCTAssertEqual(try f.record(keyId)?.failedAttempts, 1, "in the store, not only in memory")
        XCTAssertEqual(retries(f), 7)
        guard case .success(.securityKeyToken(let cleared)) = try token(f, pin) else { return XCTFail() }
        XCTAssertEqual(cleared, 1)
        XCTAssertEqual(retries(f), 8)
        // The PIN itself (not its hash) is a wrong PIN to CTAP.
        let raw = f.submit(.securityKeyToken(pinHash: try f.secret("0123456789abcdef"), channel: channel, permissions: 3, rpId: nil))
        XCTAssertEqual(raw.failure, .wrongPin(remainingAttempts: 7))
        XCTAssertEqual(f.submit(.securityKeyToken(pinHash: try f.secret(pin), channel: channel, permissions: 3, rpId: nil)).failure,
                       .invalidChallenge, "not 16 bytes: refused before anything is counted")
        XCTAssertEqual(retries(f), 7)
    }

    func testAPasskey_isMadeAndAsserted_underAToken_andVerifies() throws {
        let f = try fixture()
        let authenticator = try f.register(user: "alice", pin: pin, purpose: .webauthn)
        XCTAssertEqual(make(f).failure, .notUnlocked, "no token yet")
        _ = try token(f, pin)
        guard case .success(.passkeyMade(let made)) = make(f) else { return XCTFail() }
        XCTAssertEqual(made.credentialId.count, 32)
        XCTAssertEqual(Array(made.authenticatorData.prefix(32)), SHA256.hash(Array("example.com".utf8)))
        XCTAssertEqual(made.authenticatorData[32], 0x45, "UP, UV, AT")
        XCTAssertTrue(verifies(.p256, made.publicKey, made.authenticatorData, made.signature), "self attestation")
        let stored = try f.store.read { try $0.passkeys(ownerUid: 1000) }
        XCTAssertEqual(stored.map(\.credentialId), [made.credentialId])
        XCTAssertEqual(stored.first?.authenticatorKeyId, authenticator)
        // The token's presence is spent: another passkey needs a new PIN.
        XCTAssertEqual(make(f).failure, .confirmationRequired)
        // A silent assertion (no presence asked) with the same token: UV without UP.
        guard case .success(.passkeyAssertions(let silent)) = assert(f) else { return XCTFail() }
        XCTAssertEqual(silent.first?.authenticatorData[32], 0x04)
        XCTAssertEqual(assert(f, presence: true).failure, .confirmationRequired)
        _ = try token(f, pin)
        guard case .success(.passkeyAssertions(let assertions)) = assert(f, presence: true), let assertion = assertions.first else {
            return XCTFail()
        }
        XCTAssertEqual(assertions.count, 1)
        XCTAssertEqual(assertion.credentialId, made.credentialId)
        XCTAssertEqual(assertion.userHandle, [1, 2, 3])
        XCTAssertEqual(assertion.authenticatorData.count, 37)
        XCTAssertEqual(assertion.authenticatorData[32], 0x05, "UP and UV")
        XCTAssertTrue(verifies(.p256, made.publicKey, assertion.authenticatorData, assertion.signature))
    }

    func testAnotherRelyingParty_hasNoCredential_andATokenForOneServesNoOther() throws {
        let f = try fixture()
        _ = try f.register(user: "alice", pin: pin, purpose: .webauthn)
        _ = try token(f, pin)
        guard case .success(.passkeyMade) = make(f, algorithm: .ed25519) else { return XCTFail() }
        XCTAssertEqual(assert(f, rp: "evil.example").failure, .noSuchCredential)
        _ = try token(f, pin, rpId: "example.com")
        guard case .success(.passkeyAssertions) = assert(f) else { return XCTFail() }
        _ = try f.register(user: "alice", pin: pin, purpose: .authenticate)
        XCTAssertEqual(make(f, rp: "example.org").failure, .permissionDenied, "a token bound to example.com")
        _ = try token(f, pin, permissions: 0x02)
        XCTAssertEqual(make(f).failure, .permissionDenied, "no mc permission")
    }

    func testAToken_endsWithItsChannel_aNewToken_andAChangeOfTheCredential() throws {
        let f = try fixture()
        let keyId = try f.register(user: "alice", pin: pin, purpose: .webauthn)
        _ = try token(f, pin)
        guard case .success(.passkeyMade) = make(f) else { return XCTFail() }
        f.engine.endSecurityKeyToken(channel: channel)
        XCTAssertEqual(assert(f).failure, .notUnlocked)
        _ = try token(f, pin)
        XCTAssertEqual(try token(f, wrong).failure, .wrongPin(remainingAttempts: 7))
        XCTAssertEqual(assert(f).failure, .notUnlocked, "a new token ends the old, even when its PIN is wrong")
        _ = try token(f, pin)
        XCTAssertNotNil(try? assert(f).get())
        guard case .success = f.submit(.changePin(
            user: "alice", keyId: keyId, currentPin: try f.secret(pin), newPin: try f.secret("604913"))) else { return XCTFail() }
        XCTAssertEqual(assert(f).failure, .notUnlocked, "ChangePin ends the token")
        // Another uid's channel of the same number holds nothing of this uid's.
        let other = Caller(uid: 1001, pid: 1, isAdmin: false)
        XCTAssertEqual(f.submit(.passkeyAssertions(
            channel: channel, rpId: "example.com", allowList: nil, clientDataHash: clientDataHash, presence: false), as: other).failure,
            .noSuchCredential)
    }

    func testWhatTheStoreCannotHold_isRefusedOrCut() throws {
        let f = try fixture()
        _ = try f.register(user: "alice", pin: pin, purpose: .webauthn)
        _ = try token(f, pin)
        for (rp, handle) in [(String(repeating: "a", count: 256), [UInt8(1)]), ("example.com", []), ("example.com", [UInt8](repeating: 1, count: 65))] {
            let refused = f.submit(.makePasskey(
                channel: channel, rpId: rp, userHandle: handle, userName: nil, displayName: nil, algorithm: .p256,
                clientDataHash: clientDataHash))
            XCTAssertEqual(refused.failure, .invalidChallenge)
        }
        let long = String(repeating: "é", count: 40)
        guard case .success(.passkeyMade) = f.submit(.makePasskey(
            channel: channel, rpId: "example.com", userHandle: [1], userName: long, displayName: long, algorithm: .p256,
            clientDataHash: clientDataHash)) else { return XCTFail() }
        let stored = try XCTUnwrap(try f.store.read { try $0.passkeys(ownerUid: 1000) }.first)
        XCTAssertEqual(stored.userName, String(repeating: "é", count: 32), "64 bytes, whole characters")
    }

    func testPasskeys_areListedAndDeletedByTheirOwner() throws {
        let f = try fixture()
        _ = try f.register(user: "alice", pin: pin, purpose: .webauthn)
        _ = try token(f, pin)
        guard case .success(.passkeyMade(let made)) = make(f) else { return XCTFail() }
        guard case .success(.passkeys(let listed)) = f.submit(.passkeys(channel: nil, rpIdHash: nil)) else { return XCTFail() }
        XCTAssertEqual(listed.map(\.rpId), ["example.com"])
        XCTAssertEqual(f.submit(.passkeys(channel: channel, rpIdHash: nil)).failure, .permissionDenied, "the token has no cm")
        let other = Caller(uid: 1001, pid: 1, isAdmin: false)
        XCTAssertEqual(f.submit(.deletePasskey(channel: nil, credentialId: made.credentialId), as: other).failure, .noSuchCredential)
        guard case .success = f.submit(.deletePasskey(channel: nil, credentialId: made.credentialId)) else { return XCTFail() }
        XCTAssertEqual(assert(f).failure, .noSuchCredential)
    }
}
