import XCTest

@testable import PinVaultCrypto

/// The canonical header encoding, byte for byte as docs/FORMAT.md gives it.
final class RecordHeaderTests: XCTestCase {
    private func header(
        user: String = "alice", purpose: KeyPurpose = .legacy, formatVersion: UInt8? = nil,
        algorithm: KeyAlgorithm = .ed25519, salt: [UInt8] = Array(0xA0...0xAF)
    ) throws -> RecordHeader {
        let keyId = try XCTUnwrap(KeyID(bytes: Array(0..<16)))
        return RecordHeader(
            formatVersion: formatVersion, purpose: purpose, algorithm: algorithm, ownerUid: 1000, user: user, keyId: keyId, kdf: KDFParameters.default, salt: salt
        )
    }

    /// Format 2: the purpose's byte follows the version.
    func testCanonicalEncoding_ofFormat2_isTheDocumentedLayout_withThePurposeByte() throws {
        for (purpose, byte) in [(KeyPurpose.authenticate, "01"), (.ssh, "02"), (.login, "03")] {
            let expected = [
                "70696e7661756c74",  // "pinvault"
                "02",  // format version
                byte,  // purpose
                "000003e8",  // owner uid 1000, big-endian
                "0005",  // user length
                "616c696365",  // "alice"
                "000102030405060708090a0b0c0d0e0f",  // keyId
                "02",  // crypto_pwhash_ALG_ARGON2ID13
                "0000000000000003",  // opslimit
                "0000000004000000",  // memlimit, 64 MiB in bytes
                "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf",  // salt
            ].joined()
            XCTAssertEqual(try header(purpose: purpose, formatVersion: 2).canonicalEncoding().hex, expected, "\(purpose)")
        }
    }

    /// Format 3, what every new key is written in: the algorithm's byte follows the purpose's.
    func testCanonicalEncoding_ofFormat3_isTheDocumentedLayout_withThePurposeAndAlgorithmBytes() throws {
        for (algorithm, byte) in [(KeyAlgorithm.ed25519, "01"), (.p256, "02")] {
            let expected = [
                "70696e7661756c74",  // "pinvault"
                "03",  // format version
                "02",  // purpose: ssh
                byte,  // algorithm
                "000003e8",  // owner uid 1000, big-endian
                "0005",  // user length
                "616c696365",  // "alice"
                "000102030405060708090a0b0c0d0e0f",  // keyId
                "02",  // crypto_pwhash_ALG_ARGON2ID13
                "0000000000000003",  // opslimit
                "0000000004000000",  // memlimit, 64 MiB in bytes
                "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf",  // salt
            ].joined()
            let encoded = try header(purpose: .ssh, algorithm: algorithm)
            XCTAssertEqual(encoded.formatVersion, 3)
            XCTAssertEqual(encoded.canonicalEncoding().hex, expected, "\(algorithm)")
        }
    }

    /// Formats 1 and 2 hold no algorithm byte: only an Ed25519 key is encodable in them.
    func testIsEncodable_requiresFormat3ForAnyAlgorithmButEd25519() throws {
        XCTAssertTrue(try header(purpose: .ssh, formatVersion: 3, algorithm: .p256).isEncodable)
        XCTAssertFalse(try header(purpose: .ssh, formatVersion: 2, algorithm: .p256).isEncodable)
        XCTAssertFalse(try header(purpose: .legacy, formatVersion: 1, algorithm: .p256).isEncodable)
        XCTAssertTrue(try header(purpose: .ssh, formatVersion: 2, algorithm: .ed25519).isEncodable)
        XCTAssertFalse(try header(purpose: .ssh, formatVersion: 4, algorithm: .ed25519).isEncodable)
    }

    /// Format 1, a legacy record's: no purpose byte.
    func testCanonicalEncoding_isTheDocumentedLayout() throws {
        let expected = [
            "70696e7661756c74",  // "pinvault"
            "01",  // format version
            "000003e8",  // owner uid 1000, big-endian
            "0005",  // user length
            "616c696365",  // "alice"
            "000102030405060708090a0b0c0d0e0f",  // keyId
            "02",  // crypto_pwhash_ALG_ARGON2ID13
            "0000000000000003",  // opslimit
            "0000000004000000",  // memlimit, 64 MiB in bytes
            "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf",  // salt
        ].joined()
        XCTAssertEqual(try header().canonicalEncoding().hex, expected)
    }

    func testCanonicalEncoding_usesTheExactUTF8OfTheUser() throws {
        // "é" precomposed (U+00E9) and decomposed (e + U+0301) are equal Swift Strings
        // but different bytes; the encoding keeps the bytes, without normalisation.
        let precomposed = try header(user: "\u{E9}").canonicalEncoding()
        let decomposed = try header(user: "e\u{301}").canonicalEncoding()
        XCTAssertNotEqual(precomposed, decomposed)
        XCTAssertEqual(Array(precomposed[13..<17]), [0x00, 0x02, 0xC3, 0xA9])
    }

    func testIsEncodable_requiresA16ByteSaltAndAUserThatFitsItsLengthField() throws {
        XCTAssertTrue(try header().isEncodable)
        XCTAssertTrue(try header(user: String(repeating: "a", count: 65_535)).isEncodable)
        XCTAssertFalse(try header(user: String(repeating: "a", count: 65_536)).isEncodable)
        XCTAssertFalse(try header(salt: Array(0..<15)).isEncodable)
        XCTAssertFalse(try header(salt: Array(0..<17)).isEncodable)
    }

    func testIsEncodable_requiresTheFormatThatHoldsThePurpose() throws {
        for purpose in KeyPurpose.allCases {
            var encoded = try header(purpose: purpose)
            XCTAssertTrue(encoded.isEncodable, "\(purpose) in its own format")
            encoded.formatVersion = purpose == .legacy ? 2 : 1
            XCTAssertFalse(encoded.isEncodable, "\(purpose) in format \(encoded.formatVersion)")
        }
    }
}
