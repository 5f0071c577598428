import Foundation
import Logging
import PinVaultCBOR
import PinVaultCTAPHID
import PinVaultCore
import PinVaultCrypto
import PinVaultStore
import XCTest

@testable import PinVaultEngine
@testable import PinVaultWebAuthn

/// The authenticator through the seam the CTAPHID door calls, on a scripted channel: a
/// platform written here (its own key agreement, PIN encryption and HMACs by CTAP's
/// rules) sets a PIN, takes a token, makes a passkey and signs in with it; every
/// signature is verified with the passkey's public key.
final class AuthenticatorTests: XCTestCase {
    private var directory = ""
    private var store: VaultStore!
    private var engine: VaultEngine!
    private var authenticator: EngineAuthenticator!
    private let channel = CTAPChannel(connection: 1, id: 0x0102_0304, uid: 1000, pid: 42, poweredUpAt: 0)
    private let clientDataHash = [UInt8](repeating: 0xcd, count: 32)
    /// The door's monotonic milliseconds, as the authenticator reads them (the channel's
    /// device powered up at 0).
    private let clock = TestClock()

    private final class TestClock: @unchecked Sendable { var now: Int64 = 0 }
    /// The engine's monotonic nanoseconds, which time its tokens: injected, so that no
    /// sweeper thread runs and a test ends what expired itself (`endExpiredSessions`).
    private let monotonic = TestNanoseconds()

    private final class TestNanoseconds: @unchecked Sendable { var now: UInt64 = 1_000_000_000 }

    override func setUpWithError() throws {
        var template = Array("/tmp/pinvault-ctap-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        directory = String(cString: made)
        store = try VaultStore(path: directory + "/vault.sqlite")
        let settings = VaultEngine.Settings(
            policy: PinPolicy(), lockout: LockoutPolicy(throttleAfter: 5, maxAttempts: 8, onMaxAttempts: .block),
            kdf: KDFParameters(opslimit: 1, memlimit: 8192),
            unregisterExpirySeconds: 300, maxCredentialsPerUser: 8, maxCredentialsPerUid: 64,
            kdfThreads: 1, kdfQueueMax: 8, kdfQueuePerUid: 8, storeQueueMax: 8, storeQueuePerUid: 8,
            sessionMaxTtlSeconds: 3600, sessionsPerUid: 16)
        engine = try VaultEngine(
            settings: settings, store: store, pepper: try Pepper.generate(),
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, monotonic: { [monotonic] in monotonic.now })
        authenticator = try EngineAuthenticator(engine: engine, clock: { [clock] in clock.now })
    }

    override func tearDownWithError() throws {
        authenticator = nil
        engine.shutdown()
        store.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// One request through the seam; the status and the decoded body.
    private func send(_ command: UInt8, _ parameters: CBORMap? = nil) throws -> (status: UInt8, body: CBORMap?) {
        let message = [command] + (parameters.map { CBOREncoder.encode(.map($0)) } ?? [])
        let request = try message.withUnsafeBytes { try SecretBytes(copying: $0) }
        let done = DispatchSemaphore(value: 0)
        let box = Box()
        authenticator.cbor(request, on: channel) { buffer in
            box.bytes = buffer.copyBytes()
            done.signal()
        }
        done.wait()
        let bytes = box.bytes
        let status = bytes.first ?? 0xff
        return (status, bytes.count > 1 ? try CBORDecoder.decodeMap(Array(bytes.dropFirst())) : nil)
    }

    private final class Box: @unchecked Sendable { var bytes: [UInt8] = [] }

    /// The platform's side of a PIN/UV auth protocol.
    private struct Platform {
        let pinProtocol: PinUvAuthProtocol
        let key: KeyAgreementKey
        let shared: SecretBytes

        var coseKey: CBORValue {
            .map(CBORMap([
                (.int(1), .int(2)), (.int(3), .int(-25)), (.int(-1), .int(1)),
                (.int(-2), .bytes(Array(key.publicKey[1..<33]))), (.int(-3), .bytes(Array(key.publicKey[33..<65]))),
            ]))
        }
    }

    private func platform(_ pinProtocol: PinUvAuthProtocol) throws -> Platform {
        let (status, body) = try send(0x06, CBORMap([(.int(1), .int(pinProtocol.rawValue)), (.int(2), .int(2))]))
        XCTAssertEqual(status, 0)
        let cose = try XCTUnwrap(body?[1]?.mapValue)
        let point = [4] + (cose[-2]?.bytesValue ?? []) + (cose[-3]?.bytesValue ?? [])
        let key = try KeyAgreementKey()
        return Platform(pinProtocol: pinProtocol, key: key, shared: try pinProtocol.sharedSecret(key, platformKey: point))
    }

    private func secret(_ bytes: [UInt8]) throws -> SecretBytes { try bytes.withUnsafeBytes { try SecretBytes(copying: $0) } }

    private func setPin(_ pin: String, _ p: Platform) throws -> UInt8 {
        let padded = Array(pin.utf8) + [UInt8](repeating: 0, count: 64 - pin.utf8.count)
        let newPinEnc = try p.pinProtocol.encrypt(sharedSecret: p.shared, secret(padded))
        let param = try p.pinProtocol.authenticate(key: p.shared, message: newPinEnc)
        return try send(0x06, CBORMap([
            (.int(1), .int(p.pinProtocol.rawValue)), (.int(2), .int(3)), (.int(3), p.coseKey),
            (.int(4), .bytes(param)), (.int(5), .bytes(newPinEnc)),
        ])).status
    }

    /// getPinUvAuthTokenUsingPinWithPermissions; the token, or the status.
    private func token(_ pin: String, _ p: Platform, permissions: Int = 0x03) throws -> (status: UInt8, token: SecretBytes?) {
        let hash = try SecurityKeyPin.hash(secret(Array(pin.utf8)))
        let pinHashEnc = try p.pinProtocol.encrypt(sharedSecret: p.shared, secret(hash.withUnsafeBytes { Array($0) }))
        let (status, body) = try send(0x06, CBORMap([
            (.int(1), .int(p.pinProtocol.rawValue)), (.int(2), .int(9)), (.int(3), p.coseKey),
            (.int(6), .bytes(pinHashEnc)), (.int(9), .int(permissions)),
        ]))
        guard status == 0, let encrypted = body?[2]?.bytesValue else { return (status, nil) }
        return (status, try p.pinProtocol.decrypt(sharedSecret: p.shared, encrypted))
    }

    private func retries() throws -> Int? {
        try send(0x06, CBORMap([(.int(1), .int(2)), (.int(2), .int(1))])).body?[3]?.intValue
    }

    func testGetInfo_namesWhatThisAuthenticatorIs() throws {
        let (status, info) = try send(0x04)
        XCTAssertEqual(status, 0)
        XCTAssertEqual(info?[1], .array([.text("FIDO_2_0"), .text("FIDO_2_1")]))
        XCTAssertEqual(info?[3]?.bytesValue, Passkey.aaguid)
        XCTAssertEqual(info?[4]?.mapValue?["clientPin"], .bool(false), "no PIN set yet")
        XCTAssertEqual(info?[5]?.intValue, CTAPHID.maximumMessageSize)
        XCTAssertEqual(info?[6], .array([.int(2), .int(1)]))
        XCTAssertEqual(info?[10]?.arrayValue?.compactMap { $0.mapValue?["alg"]?.intValue }, [-7, -8])
    }

    func testRegistersAndSignsIn_withEitherProtocol_andAWrongPinIsCounted() throws {
        XCTAssertEqual(try send(0x06, CBORMap([(.int(1), .int(2)), (.int(2), .int(1))])).status, 0x35, "PIN not set")
        XCTAssertEqual(try setPin("1234", try platform(.two)), 0x37, "the policy, on the PIN itself")
        XCTAssertEqual(try setPin("482915", try platform(.two)), 0)
        XCTAssertEqual(try send(0x04).body?[4]?.mapValue?["clientPin"], .bool(true))
        XCTAssertEqual(try setPin("593861", try platform(.two)), 0x30, "a second setPIN is not allowed")
        XCTAssertEqual(try retries(), 8)
        for pinProtocol in PinUvAuthProtocol.allCases {
            let p = try platform(pinProtocol)
            XCTAssertEqual(try token("000000", p).status, 0x31, "PIN_INVALID")
            XCTAssertEqual(try retries(), 7, "counted, and shown as getPINRetries")
            let token = try XCTUnwrap(try token("482915", p).token)
            let rp = "example.com"
            let makeParam = try pinProtocol.authenticate(key: token, message: clientDataHash)
            let (made, attestation) = try send(0x01, CBORMap([
                (.int(1), .bytes(clientDataHash)), (.int(2), .map(CBORMap([(.text("id"), .text(rp))]))),
                (.int(3), .map(CBORMap([(.text("id"), .bytes([7])), (.text("name"), .text("alice"))]))),
                (.int(4), .array([.map(CBORMap([(.text("alg"), .int(-7)), (.text("type"), .text("public-key"))]))])),
                (.int(7), .map(CBORMap([(.text("rk"), .bool(true))]))),
                (.int(8), .bytes(makeParam)), (.int(9), .int(pinProtocol.rawValue)),
            ]))
            XCTAssertEqual(made, 0, "\(pinProtocol)")
            XCTAssertEqual(attestation?[1], .text("packed"))
            let authData = try XCTUnwrap(attestation?[2]?.bytesValue)
            let idLength = Int(authData[53]) << 8 | Int(authData[54])
            let credentialId = Array(authData[55..<(55 + idLength)])
            let cose = try CBORDecoder.decodeMap(Array(authData[(55 + idLength)...]))
            let publicKey = [4] + (cose[-2]?.bytesValue ?? []) + (cose[-3]?.bytesValue ?? [])
            let selfSignature = try XCTUnwrap(attestation?[3]?.mapValue?["sig"]?.bytesValue)
            XCTAssertTrue((authData + clientDataHash).withUnsafeBytes { KeyAlgorithm.p256.verify(signature: selfSignature, message: $0, publicKey: publicKey) })

            // A discoverable sign-in: the same token (used once) asks no presence again.
            let (signed, assertion) = try send(0x02, CBORMap([
                (.int(1), .text(rp)), (.int(2), .bytes(clientDataHash)),
                (.int(5), .map(CBORMap([(.text("up"), .bool(false))]))),
                (.int(6), .bytes(makeParam)), (.int(7), .int(pinProtocol.rawValue)),
            ]))
            XCTAssertEqual(signed, 0)
            XCTAssertEqual(assertion?[1]?.mapValue?["id"]?.bytesValue, credentialId)
            let assertionData = try XCTUnwrap(assertion?[2]?.bytesValue)
            let signature = try XCTUnwrap(assertion?[3]?.bytesValue)
            XCTAssertTrue((assertionData + clientDataHash).withUnsafeBytes { KeyAlgorithm.p256.verify(signature: signature, message: $0, publicKey: publicKey) })
            XCTAssertEqual(assertion?[4]?.mapValue?["id"]?.bytesValue, [7])

            // Another rp id: no credential. A wrong pinUvAuthParam: PIN_AUTH_INVALID.
            XCTAssertEqual(try send(0x02, CBORMap([
                (.int(1), .text("evil.example")), (.int(2), .bytes(clientDataHash)),
                (.int(5), .map(CBORMap([(.text("up"), .bool(false))]))),
                (.int(6), .bytes(makeParam)), (.int(7), .int(pinProtocol.rawValue)),
            ])).status, 0x2E)
            XCTAssertEqual(try send(0x02, CBORMap([
                (.int(1), .text(rp)), (.int(2), .bytes(clientDataHash)),
                (.int(6), .bytes([UInt8](repeating: 0, count: pinProtocol.authenticatorSize))), (.int(7), .int(pinProtocol.rawValue)),
            ])).status, 0x33)
            // Without a token's proof at all: PIN_REQUIRED.
            XCTAssertEqual(try send(0x02, CBORMap([(.int(1), .text(rp)), (.int(2), .bytes(clientDataHash))])).status, 0x36)
        }
        XCTAssertEqual(try retries(), 8, "each right PIN cleared the wrong one before it")
        // The channel's close ends its token.
        authenticator.channelClosed(channel)
        XCTAssertEqual(try send(0x02, CBORMap([
            (.int(1), .text("example.com")), (.int(2), .bytes(clientDataHash)),
            (.int(6), .bytes([UInt8](repeating: 0, count: 32))), (.int(7), .int(2)),
        ])).status, 0x33)
    }

    /// A security key with its PIN and one passkey of example.com; the passkey's id.
    @discardableResult
    private func securityKeyWithAPasskey() throws -> [UInt8] {
        XCTAssertEqual(try setPin("482915", try platform(.two)), 0)
        let p = try platform(.two)
        let token = try XCTUnwrap(try token("482915", p).token)
        let (made, attestation) = try send(0x01, CBORMap([
            (.int(1), .bytes(clientDataHash)), (.int(2), .map(CBORMap([(.text("id"), .text("example.com"))]))),
            (.int(3), .map(CBORMap([(.text("id"), .bytes([7])), (.text("name"), .text("alice"))]))),
            (.int(4), .array([.map(CBORMap([(.text("alg"), .int(-7)), (.text("type"), .text("public-key"))]))])),
            (.int(7), .map(CBORMap([(.text("rk"), .bool(true))]))),
            (.int(8), .bytes(try p.pinProtocol.authenticate(key: token, message: clientDataHash))), (.int(9), .int(2)),
        ]))
        XCTAssertEqual(made, 0)
        let authData = try XCTUnwrap(attestation?[2]?.bytesValue)
        return Array(authData[55..<(55 + (Int(authData[53]) << 8 | Int(authData[54])))])
    }

    func testReset_withinTenSecondsOfPowerUp_wipesTheSecurityKeyAndItsPasskeys() throws {
        try securityKeyWithAPasskey()
        XCTAssertEqual(try store.read { try $0.passkeyCount(ownerUid: 1000) }, 1)
        clock.now = EngineAuthenticator.resetWindowMilliseconds  // ten seconds after power-up, to the millisecond
        XCTAssertEqual(try send(0x07).status, 0)
        XCTAssertEqual(try store.read { try $0.passkeyCount(ownerUid: 1000) }, 0, "the passkeys went with it")
        XCTAssertTrue(try store.read { try $0.credentials(ownerUid: 1000, user: nil) }.isEmpty, "the security key is wiped")
        XCTAssertEqual(try send(0x04).body?[4]?.mapValue?["clientPin"], .bool(false), "no PIN set any more")
        XCTAssertEqual(try send(0x07).status, 0, "a fresh authenticator resets too")
        // A PIN may be set afresh; the old one is gone with the key.
        XCTAssertEqual(try setPin("593861", try platform(.two)), 0)
        XCTAssertEqual(try token("482915", try platform(.two)).status, 0x31)
    }

    func testReset_laterThanTenSecondsAfterPowerUp_isNotAllowed_andKeepsEverything() throws {
        try securityKeyWithAPasskey()
        clock.now = EngineAuthenticator.resetWindowMilliseconds + 1
        XCTAssertEqual(try send(0x07).status, 0x30, "CTAP2_ERR_NOT_ALLOWED")
        XCTAssertEqual(try store.read { try $0.passkeyCount(ownerUid: 1000) }, 1)
        XCTAssertEqual(try store.read { try $0.credentials(ownerUid: 1000, user: nil) }.count, 1)
        XCTAssertEqual(try retries(), 8)
        // A device that came up just now (a new connection) may.
        let fresh = CTAPChannel(connection: 2, id: 9, uid: 1000, pid: 42, poweredUpAt: clock.now)
        let request = try [UInt8(0x07)].withUnsafeBytes { try SecretBytes(copying: $0) }
        let done = DispatchSemaphore(value: 0)
        let box = Box()
        authenticator.cbor(request, on: fresh) { buffer in
            box.bytes = buffer.copyBytes()
            done.signal()
        }
        done.wait()
        XCTAssertEqual(box.bytes, [0])
        XCTAssertEqual(try store.read { try $0.passkeyCount(ownerUid: 1000) }, 0)
    }

    /// A token left unused is wiped at its deadline — the engine's seed and the channel's
    /// HMAC key, each released (and so zeroed) — though no request comes to notice it and
    /// the channel stays open.
    func testAnUnusedToken_atItsDeadline_isWipedOnBothSides_withTheChannelOpen() throws {
        try securityKeyWithAPasskey()
        let p = try platform(.two)
        let token = try XCTUnwrap(try token("482915", p).token)
        weak var seed = engine.securityKeyTokens.seeds.first
        weak var hmacKey = authenticator.token(on: channel)
        XCTAssertNotNil(seed)
        XCTAssertNotNil(hmacKey)
        let signIn = CBORMap([
            (.int(1), .text("example.com")), (.int(2), .bytes(clientDataHash)),
            (.int(5), .map(CBORMap([(.text("up"), .bool(false))]))),
            (.int(6), .bytes(try p.pinProtocol.authenticate(key: token, message: clientDataHash))), (.int(7), .int(2)),
        ])

        monotonic.now += SecurityKeyTokens.lifetimeNanoseconds - 1
        engine.endExpiredSessions()
        XCTAssertNotNil(seed, "a nanosecond before its deadline the token lives")
        XCTAssertNotNil(hmacKey)
        XCTAssertEqual(try send(0x02, signIn).status, 0)

        monotonic.now += 1
        engine.endExpiredSessions()
        XCTAssertNil(seed, "the seed outlived its token's deadline")
        XCTAssertNil(hmacKey, "the channel's HMAC key outlived its token's deadline")
        XCTAssertNil(authenticator.token(on: channel))
        XCTAssertEqual(engine.securityKeyTokens.count, 0)
        XCTAssertEqual(try send(0x02, signIn).status, 0x33, "PIN_AUTH_INVALID: the token is gone")
    }

    /// The engine tells of a token's end after it: when the channel has a new token by
    /// the time the notice arrives, the notice is of the old one and the new token's
    /// HMAC key stays.
    func testALateNoticeOfAnEndedToken_leavesTheChannelsNewTokenAlone() throws {
        try securityKeyWithAPasskey()
        let p = try platform(.two)
        let token = try XCTUnwrap(try token("482915", p).token)
        let key = try XCTUnwrap(authenticator.channelKey(channel))
        authenticator.tokensEnded([key])  // as the sweeper's notice of an earlier token, late
        XCTAssertNotNil(authenticator.token(on: channel), "a late notice wiped the channel's new token")
        let signIn = CBORMap([
            (.int(1), .text("example.com")), (.int(2), .bytes(clientDataHash)),
            (.int(5), .map(CBORMap([(.text("up"), .bool(false))]))),
            (.int(6), .bytes(try p.pinProtocol.authenticate(key: token, message: clientDataHash))), (.int(7), .int(2)),
        ])
        XCTAssertEqual(try send(0x02, signIn).status, 0)

        engine.endSecurityKeyToken(channel: key)
        XCTAssertNil(authenticator.token(on: channel), "the notice of the token's own end leaves its key")
    }

    func testChangePin_takesTheCurrentPinsHashAndTheNewPin() throws {
        XCTAssertEqual(try setPin("482915", try platform(.two)), 0)
        for (current, new, expected) in [("000000", "593861", UInt8(0x31)), ("482915", "1234", 0x37), ("482915", "593861", 0)] {
            let p = try platform(.one)
            let hash = try SecurityKeyPin.hash(secret(Array(current.utf8)))
            let pinHashEnc = try p.pinProtocol.encrypt(sharedSecret: p.shared, secret(hash.withUnsafeBytes { Array($0) }))
            let padded = Array(new.utf8) + [UInt8](repeating: 0, count: 64 - new.utf8.count)
            let newPinEnc = try p.pinProtocol.encrypt(sharedSecret: p.shared, secret(padded))
            let param = try p.pinProtocol.authenticate(key: p.shared, message: newPinEnc + pinHashEnc)
            XCTAssertEqual(try send(0x06, CBORMap([
                (.int(1), .int(1)), (.int(2), .int(4)), (.int(3), p.coseKey), (.int(4), .bytes(param)),
                (.int(5), .bytes(newPinEnc)), (.int(6), .bytes(pinHashEnc)),
            ])).status, expected, "\(current) → \(new)")
        }
        XCTAssertEqual(try token("482915", try platform(.two)).status, 0x31, "the old PIN is wrong now")
        XCTAssertNotNil(try token("593861", try platform(.two)).token)
    }

    func testMalformedRequests_areCTAPErrors() throws {
        XCTAssertEqual(try send(0x01, CBORMap()).status, 0x14, "missing parameters")
        XCTAssertEqual(try send(0x06, CBORMap([(.int(1), .int(3)), (.int(2), .int(2))])).status, 0x02, "protocol 3")
        XCTAssertEqual(try send(0x06, CBORMap([(.int(1), .int(2)), (.int(2), .int(0x42))])).status, 0x3E)
        XCTAssertEqual(try send(0x42).status, 0x01)
        let request = try [UInt8]([0x01, 0xa1, 0x01]).withUnsafeBytes { try SecretBytes(copying: $0) }
        let done = DispatchSemaphore(value: 0)
        let box = Box()
        authenticator.cbor(request, on: channel) { box.bytes = $0.copyBytes(); done.signal() }
        done.wait()
        XCTAssertEqual(box.bytes, [0x12], "truncated CBOR")
    }
}
