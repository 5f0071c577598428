import XCTest

@testable import PinVaultCrypto

/// RFC 8032 section 7.1, TEST 1–3: seed → public key, signature, verification.
final class Ed25519Tests: XCTestCase {
    private struct Vector {
        let name: String
        let seed: String
        let publicKey: String
        let message: String
        let signature: String
    }

    private let vectors = [
        Vector(
            name: "TEST 1",
            seed: "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
            publicKey: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
            message: "",
            signature: "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
                + "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
        ),
        Vector(
            name: "TEST 2",
            seed: "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
            publicKey: "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
            message: "72",
            signature: "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
                + "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"
        ),
        Vector(
            name: "TEST 3",
            seed: "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
            publicKey: "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
            message: "af82",
            signature: "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac"
                + "18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"
        ),
    ]

    func testKeyPair_fromRFC8032Seeds_hasTheRFCPublicKeys() throws {
        for vector in vectors {
            let pair = try SigningKeyPair(algorithm: .ed25519, seed: secret([UInt8](hex: vector.seed)))
            XCTAssertEqual(pair.publicKey.hex, vector.publicKey, vector.name)
        }
    }

    func testSign_RFC8032Messages_givesTheRFCSignatures() throws {
        for vector in vectors {
            let pair = try SigningKeyPair(algorithm: .ed25519, seed: secret([UInt8](hex: vector.seed)))
            let signature = try [UInt8](hex: vector.message).withUnsafeBytes { try pair.sign($0) }
            XCTAssertEqual(signature.hex, vector.signature, vector.name)
        }
    }

    func testVerify_RFC8032Signatures_accepts() {
        for vector in vectors {
            let accepted = [UInt8](hex: vector.message).withUnsafeBytes {
                Ed25519.verify(
                    signature: [UInt8](hex: vector.signature), message: $0,
                    publicKey: [UInt8](hex: vector.publicKey)
                )
            }
            XCTAssertTrue(accepted, vector.name)
        }
    }

    func testVerify_withOneBitFlippedInMessageSignatureOrKey_rejects() {
        let vector = vectors[2]
        let message = [UInt8](hex: vector.message)
        let signature = [UInt8](hex: vector.signature)
        let publicKey = [UInt8](hex: vector.publicKey)

        var otherMessage = message
        otherMessage[0] ^= 1
        var otherSignature = signature
        otherSignature[10] ^= 1
        var otherKey = publicKey
        otherKey[0] ^= 1

        XCTAssertFalse(otherMessage.withUnsafeBytes {
            Ed25519.verify(signature: signature, message: $0, publicKey: publicKey)
        })
        XCTAssertFalse(message.withUnsafeBytes {
            Ed25519.verify(signature: otherSignature, message: $0, publicKey: publicKey)
        })
        XCTAssertFalse(message.withUnsafeBytes {
            Ed25519.verify(signature: signature, message: $0, publicKey: otherKey)
        })
    }

    func testVerify_withExtraMessageBytes_rejects() {
        let vector = vectors[1]
        let longer = [UInt8](hex: vector.message) + [0]
        XCTAssertFalse(longer.withUnsafeBytes {
            Ed25519.verify(
                signature: [UInt8](hex: vector.signature), message: $0,
                publicKey: [UInt8](hex: vector.publicKey)
            )
        })
    }

    func testVerify_withWrongSizes_rejectsWithoutCrashing() {
        let vector = vectors[0]
        let signature = [UInt8](hex: vector.signature)
        let publicKey = [UInt8](hex: vector.publicKey)
        let empty = [UInt8]()
        XCTAssertFalse(empty.withUnsafeBytes {
            Ed25519.verify(signature: Array(signature.dropLast()), message: $0, publicKey: publicKey)
        })
        XCTAssertFalse(empty.withUnsafeBytes {
            Ed25519.verify(signature: signature, message: $0, publicKey: publicKey + [0])
        })
        XCTAssertFalse(empty.withUnsafeBytes {
            Ed25519.verify(signature: [], message: $0, publicKey: [])
        })
    }

    func testKeyPair_withSeedOfWrongSize_throwsInvalidLength() throws {
        let short = try SecretBytes.random(count: 31)
        assertThrows(.invalidLength("seed")) { try SigningKeyPair(algorithm: .ed25519, seed: short) }
        let long = try SecretBytes.random(count: 33)
        assertThrows(.invalidLength("seed")) { try SigningKeyPair(algorithm: .ed25519, seed: long) }
    }

    func testGenerateSeed_gives32FreshBytes() throws {
        let first = try KeyAlgorithm.generateSeed()
        let second = try KeyAlgorithm.generateSeed()
        XCTAssertEqual(first.count, KeyAlgorithm.seedSize)
        XCTAssertFalse(first.constantTimeEquals(second))
    }

    func testSignThenVerify_withGeneratedSeed_roundTrips() throws {
        let pair = try SigningKeyPair(algorithm: .ed25519, seed: KeyAlgorithm.generateSeed())
        let challenge = Array("challenge from a relying party".utf8)
        let signature = try challenge.withUnsafeBytes { try pair.sign($0) }
        XCTAssertEqual(signature.count, Ed25519.signatureSize)
        XCTAssertTrue(challenge.withUnsafeBytes {
            Ed25519.verify(signature: signature, message: $0, publicKey: pair.publicKey)
        })
    }
}
