import XCTest

@testable import PinVaultCrypto

/// A passkey's key: derived from the authenticator's seed, the rp id hash and the
/// credential id exactly as docs/FORMAT.md says (known answers from Python's hashlib),
/// and what CTAP sends for a PIN.
final class PasskeySeedTests: XCTestCase {
    private let rpIdHash = SHA256.hash(Array("example.com".utf8))
    private let credentialId = [UInt8](repeating: 0xa5, count: 16)

    func testTheSeed_isKeyedBLAKE2bOverTheContextRpAndCredentialId() throws {
        // hashlib.blake2b(b"pinvault passkey v1\0" + sha256(b"example.com") + b"\xa5" * 16,
        //                 key=bytes(range(32)), digest_size=32)
        let seed = try PasskeySeed.derive(
            authenticatorSeed: secret(Array(0..<32)), rpIdHash: rpIdHash, credentialId: credentialId)
        XCTAssertEqual(contents(seed).hex, "e2e127ff7eca787fd1eea93943cce147b63452928a5f55d74613edba1d9e1d35")
    }

    func testAnotherRelyingPartyOrCredentialId_isAnotherKey_ofEitherAlgorithm() throws {
        let authenticator = try KeyAlgorithm.generateSeed()
        for algorithm in KeyAlgorithm.allCases {
            let key = try PasskeySeed.keyPair(
                algorithm: algorithm, authenticatorSeed: authenticator, rpIdHash: rpIdHash, credentialId: credentialId)
            let again = try PasskeySeed.keyPair(
                algorithm: algorithm, authenticatorSeed: authenticator, rpIdHash: rpIdHash, credentialId: credentialId)
            XCTAssertEqual(key.publicKey, again.publicKey, "derived, not random")
            let otherRp = try PasskeySeed.keyPair(
                algorithm: algorithm, authenticatorSeed: authenticator, rpIdHash: SHA256.hash(Array("example.org".utf8)),
                credentialId: credentialId)
            let otherId = try PasskeySeed.keyPair(
                algorithm: algorithm, authenticatorSeed: authenticator, rpIdHash: rpIdHash,
                credentialId: [UInt8](repeating: 0xa6, count: 16))
            let otherAuthenticator = try PasskeySeed.keyPair(
                algorithm: algorithm, authenticatorSeed: KeyAlgorithm.generateSeed(), rpIdHash: rpIdHash, credentialId: credentialId)
            XCTAssertEqual(Set([key.publicKey, otherRp.publicKey, otherId.publicKey, otherAuthenticator.publicKey]).count, 4)
            let message = Array("authenticatorData || clientDataHash".utf8)
            let signature = try message.withUnsafeBytes { try key.sign($0) }
            XCTAssertTrue(message.withUnsafeBytes { algorithm.verify(signature: signature, message: $0, publicKey: key.publicKey) })
        }
    }

    func testSizes_areChecked() throws {
        let authenticator = try KeyAlgorithm.generateSeed()
        for (hash, id) in [([UInt8](repeating: 0, count: 31), credentialId), (rpIdHash, [UInt8](repeating: 0, count: 15)),
                           (rpIdHash, [UInt8](repeating: 0, count: 33))] {
            XCTAssertThrowsError(try PasskeySeed.derive(authenticatorSeed: authenticator, rpIdHash: hash, credentialId: id))
        }
        XCTAssertThrowsError(try PasskeySeed.derive(
            authenticatorSeed: secret([UInt8](repeating: 1, count: 16)), rpIdHash: rpIdHash, credentialId: credentialId))
    }

    func testWhatCTAPSendsForAPin_isTheFirstHalfOfItsSHA256() throws {
        // hashlib.sha256(b"1234").digest()[:16]
        XCTAssertEqual(contents(try SecurityKeyPin.hash(secret("1234"))).hex, "03ac674216f3e15c761ee1a5e255f067")
    }
}
