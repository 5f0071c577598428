import XCTest

@testable import PinVaultCrypto

/// One real round trip at the production parameters (opslimit 3, 64 MiB), so the
/// configuration the daemon ships with is exercised, not only the weak test one.
final class SeedSealerProductionTests: XCTestCase {
    func testSealAndOpen_atDefaultParameters_roundTrips() throws {
        let seed = try KeyAlgorithm.generateSeed()
        let pepper = try Pepper.generate()
        let keyId = try KeyID(publicKey: SigningKeyPair(algorithm: .ed25519, seed: seed).publicKey)

        let sealed = try SeedSealer.seal(
            seed: seed, pin: secret("493027"), pepper: pepper, purpose: .authenticate, algorithm: .ed25519, ownerUid: 1000,
            user: "alice@example.com", keyId: keyId, parameters: .default
        )
        XCTAssertEqual(sealed.header.kdf, KDFParameters(opslimit: 3, memlimit: 64 << 20))

        let opened = try SeedSealer.open(sealed, pin: secret("493027"), pepper: pepper)
        XCTAssertTrue(opened.constantTimeEquals(seed))
        assertThrows(.openFailed) { try SeedSealer.open(sealed, pin: secret("493028"), pepper: pepper) }
    }
}
