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
}
