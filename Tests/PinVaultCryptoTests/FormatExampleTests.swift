import XCTest

@testable import PinVaultCrypto

/// The worked example of docs/FORMAT.md (also checked by docs/recover_seed.py with
/// PyNaCl): a row sealed at the default parameters with the pepper 00 01 … 1f and the
/// PIN "493027". If the format drifts from the document, this test fails.
final class FormatExampleTests: XCTestCase {
    private let seedHex = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"
    private let publicKeyHex = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
    private let keyIdHex = "7849ac3049680be1ef762efe0d36e017"
    private let headerHex = "70696e7661756c7401000003e80011616c696365406578616d706c652e636f6d"
        + "7849ac3049680be1ef762efe0d36e0170200000000000000030000000004000000"
        + "f2899c1065b2187c7e31676860ad5518"
    private let pinKeyHex = "92411ba46a53e1858f62698fd67858500bc2426cf5f07ad8228f6b0955836dee"
    private let boxKeyHex = "15de2b909d15b00f1b24eda196af073e7a3055442c8f23c032a0547f6e6c5146"

    private func exampleRecord() throws -> SealedSeed {
        let header = RecordHeader(
            formatVersion: 1,
            purpose: .legacy,
            ownerUid: 1000,
            user: "alice@example.com",
            keyId: try XCTUnwrap(KeyID(hex: keyIdHex)),
            kdf: KDFParameters(opslimit: 3, memlimit: 67_108_864),
            salt: [UInt8](hex: "f2899c1065b2187c7e31676860ad5518")
        )
        return SealedSeed(
            header: header,
            nonce: [UInt8](hex: "5f31dd2b47dba05bdf2a59b0e26f9e63bf5d8904b5a1bec6"),
            ciphertext: [UInt8](hex: "cc9af491aae3f537755c1903d269c7bd038b1d3fa8730289ba2e9531ee742323"
                + "823519323ef7975d4f46121673dd3afb")
        )
    }

    private func examplePepper() throws -> Pepper {
        try Pepper(secret: secret([UInt8](0..<32)))
    }

    func testExample_keyIdIsDerivedFromThePublicKeyOfTheSeed() throws {
        let pair = try SigningKeyPair(algorithm: .ed25519, seed: secret([UInt8](hex: seedHex)))
        XCTAssertEqual(pair.publicKey.hex, publicKeyHex)
        XCTAssertEqual(try KeyID(publicKey: pair.publicKey).hex, keyIdHex)
    }

    func testExample_headerEncodingIsTheDocumentedBytes() throws {
        XCTAssertEqual(try exampleRecord().header.canonicalEncoding().hex, headerHex)
    }

    // MARK: Format 2 (docs/FORMAT.md §11.2): the same key, PIN, salt and nonce, purpose ssh.

    private let headerV2Hex = "70696e7661756c740202000003e80011616c696365406578616d706c652e636f6d"
        + "7849ac3049680be1ef762efe0d36e0170200000000000000030000000004000000"
        + "f2899c1065b2187c7e31676860ad5518"
    private let boxKeyV2Hex = "256144ff243854dbb926d7b6a82cce566ff8668efbbc47ca7fb633709c308ca6"

    private func exampleRecordV2() throws -> SealedSeed {
        var record = try exampleRecord()
        record.header.formatVersion = 2
        record.header.purpose = .ssh
        record.ciphertext = [UInt8](hex: "ff9b5592e9e02745ab24315f9f9f58c61ad5591500cb738fbf3af23c4c55e641"
            + "2c5a6548447b1aa1c5dca2a629517580")
        return record
    }

    func testFormat2Example_headerHoldsThePurpose_andTheSeedOpens() throws {
        let record = try exampleRecordV2()
        XCTAssertEqual(record.header.canonicalEncoding().hex, headerV2Hex)
        let pin = try secret("493027")
        let pinKey = try PinKDF.deriveKey(pin: pin, salt: record.header.salt, parameters: record.header.kdf)
        XCTAssertEqual(contents(pinKey).hex, pinKeyHex, "the PIN key does not depend on the header")
        XCTAssertEqual(contents(try SeedSealer.boxKey(pinKey: pinKey, pepper: examplePepper(), header: record.header)).hex, boxKeyV2Hex)
        XCTAssertEqual(contents(try SeedSealer.open(record, pin: pin, pepper: examplePepper())).hex, seedHex)
        var asAppKey = record
        asAppKey.header.purpose = .authenticate
        XCTAssertThrowsError(try SeedSealer.open(asAppKey, pin: pin, pepper: examplePepper()), "its purpose edited")
    }

    func testExample_intermediateKeysAndSeedAreTheDocumentedOnes() throws {
        let record = try exampleRecord()
        let pin = try secret("493027")
        let pinKey = try PinKDF.deriveKey(pin: pin, salt: record.header.salt, parameters: record.header.kdf)
        XCTAssertEqual(contents(pinKey).hex, pinKeyHex)
        let boxKey = try SeedSealer.boxKey(pinKey: pinKey, pepper: examplePepper(), header: record.header)
        XCTAssertEqual(contents(boxKey).hex, boxKeyHex)

        let seed = try SeedSealer.open(record, pin: pin, pepper: examplePepper())
        XCTAssertEqual(contents(seed).hex, seedHex)
    }

    // MARK: Format 3 (docs/FORMAT.md §11.3): the same seed, PIN, salt and nonce; ssh, p256.
    // Sealed by PyNaCl and hashlib following the document alone.

    private let pointV3Hex = "04860ec9ccdf002dbdcd5824b13767f7bedd3caf3da4a0487ed9c263004e2123b9"
        + "60e3b4426ec52ab9fd07a70ed9fea3c142a381c6dfe1dc00e55e50f424fbfa09"
    private let keyIdV3Hex = "867a38dc18f2a9be75689a51d66e3605"
    private let headerV3Hex = "70696e7661756c74030202000003e80011616c696365406578616d706c652e636f6d"
        + "867a38dc18f2a9be75689a51d66e36050200000000000000030000000004000000"
        + "f2899c1065b2187c7e31676860ad5518"
    private let boxKeyV3Hex = "ea0d606b87da2d0570177e5c8e610b03c82393ba2995605c8e3608d08013810c"
    private let scalarV3Hex = "9817c1226f1668925d656f30a777dbbae74a64133e8026dc0411aa5396d2dca2"

    func testFormat3Example_headerHoldsTheAlgorithm_theSeedOpens_andGivesTheDocumentedKey() throws {
        var record = try exampleRecord()
        record.header.formatVersion = 3
        record.header.purpose = .ssh
        record.header.algorithm = .p256
        record.header.keyId = try XCTUnwrap(KeyID(hex: keyIdV3Hex))
        record.ciphertext = [UInt8](hex: "2c5190481038b74a408b7b4df982bc494385bb7c407f2b8277d54ba9fc1e03fe"
            + "050fbae746488283bec02ef5f9e5fe5b")
        XCTAssertEqual(record.header.canonicalEncoding().hex, headerV3Hex)
        let pin = try secret("493027")
        let pinKey = try PinKDF.deriveKey(pin: pin, salt: record.header.salt, parameters: record.header.kdf)
        XCTAssertEqual(contents(try SeedSealer.boxKey(pinKey: pinKey, pepper: examplePepper(), header: record.header)).hex, boxKeyV3Hex)
        let seed = try SeedSealer.open(record, pin: pin, pepper: examplePepper())
        XCTAssertEqual(contents(seed).hex, seedHex)
        XCTAssertEqual(contents(try P256.scalar(seed: seed)).hex, scalarV3Hex)
        let pair = try SigningKeyPair(algorithm: .p256, seed: seed)
        XCTAssertEqual(pair.publicKey.hex, pointV3Hex)
        XCTAssertEqual(try KeyID(publicKey: pair.publicKey).hex, keyIdV3Hex)
        var asEd25519 = record
        asEd25519.header.algorithm = .ed25519
        XCTAssertThrowsError(try SeedSealer.open(asEd25519, pin: pin, pepper: examplePepper()), "its algorithm edited")
    }
}
