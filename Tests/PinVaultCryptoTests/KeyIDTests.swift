import XCTest

@testable import PinVaultCrypto

/// keyId = first 16 bytes of unkeyed BLAKE2b-256 of the raw public key; expected values
/// computed independently with Python's `hashlib.blake2b(pk, digest_size=32)`.
final class KeyIDTests: XCTestCase {
    func testInitPublicKey_RFC8032Test1Key_givesTheIndependentlyComputedId() throws {
        let publicKey = [UInt8](hex: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
        let keyId = try KeyID(publicKey: publicKey)
        XCTAssertEqual(keyId.hex, "7849ac3049680be1ef762efe0d36e017")
    }

    func testInitPublicKey_RFC8032Test3Key_givesTheIndependentlyComputedId() throws {
        let publicKey = [UInt8](hex: "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025")
        XCTAssertEqual(try KeyID(publicKey: publicKey).hex, "a64ff339163269280c28f353461f3fad")
    }

    func testInitPublicKey_isThePrefixOfBLAKE2b256() throws {
        let pair = try SigningKeyPair(algorithm: .ed25519, seed: KeyAlgorithm.generateSeed())
        let digest = try pair.publicKey.withUnsafeBytes { try BLAKE2b.hash($0, outputLength: 32) }
        XCTAssertEqual(try KeyID(publicKey: pair.publicKey).bytes, Array(digest.prefix(16)))
    }

    func testInitPublicKey_withWrongSize_throwsInvalidLength() {
        assertThrows(.invalidLength("publicKey")) { try KeyID(publicKey: [UInt8](repeating: 7, count: 31)) }
        assertThrows(.invalidLength("publicKey")) { try KeyID(publicKey: []) }
    }

    func testHex_roundTripsThroughParsing() throws {
        let publicKey = [UInt8](hex: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
        let keyId = try KeyID(publicKey: publicKey)
        XCTAssertEqual(KeyID(hex: keyId.hex), keyId)
        XCTAssertNil(KeyID(hex: "7849AC3049680BE1EF762EFE0D36E017"), "only lowercase hex is canonical")
    }
}
