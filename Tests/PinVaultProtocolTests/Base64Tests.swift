import PinVaultCrypto
@testable import PinVaultProtocol
import XCTest

final class Base64Tests: XCTestCase {
    /// RFC 4648 §10 test vectors.
    private let vectors: [(String, String, String)] = [
        ("", "", ""), ("f", "Zg==", "Zg"), ("fo", "Zm8=", "Zm8"), ("foo", "Zm9v", "Zm9v"),
        ("foob", "Zm9vYg==", "Zm9vYg"), ("fooba", "Zm9vYmE=", "Zm9vYmE"), ("foobar", "Zm9vYmFy", "Zm9vYmFy"),
    ]

    func testEncode_matchesRFC4648Vectors() {
        for (plain, standard, url) in vectors {
            XCTAssertEqual(Base64.encodedString(Array(plain.utf8), alphabet: .standard), standard)
            XCTAssertEqual(Base64.encodedString(Array(plain.utf8), alphabet: .url), url)
        }
    }

    func testDecode_matchesRFC4648Vectors() throws {
        for (plain, standard, url) in vectors {
            XCTAssertEqual(try Base64.decode(standard, alphabet: .standard), Array(plain.utf8))
            XCTAssertEqual(try Base64.decode(url, alphabet: .url), Array(plain.utf8))
        }
    }

    func testDecode_usesEachAlphabetsOwnLastTwoCharacters() throws {
        XCTAssertEqual(try Base64.decode("+/8=", alphabet: .standard), [0xFB, 0xFF])
        XCTAssertEqual(try Base64.decode("-_8", alphabet: .url), [0xFB, 0xFF])
        XCTAssertThrowsError(try Base64.decode("-_8=", alphabet: .standard))
        XCTAssertThrowsError(try Base64.decode("+/8", alphabet: .url))
    }

    func testDecode_rejectsEverythingNonCanonical() {
        let standard: [(String, Base64.DecodingError)] = [
            ("Zg", .invalidLength), ("Zg=", .invalidLength), ("Zm9", .invalidLength), ("Z", .invalidLength),
            ("Zg===", .invalidLength), ("Z===", .invalidCharacter), ("====", .invalidCharacter),
            ("Zm 9v", .invalidLength), ("Zm9v\n", .invalidLength), (" Zm9", .invalidCharacter),
            ("Zm9vYg==\n", .invalidLength), ("Zg==Zg==", .invalidCharacter), ("Z=g=", .invalidCharacter),
            ("Zh==", .nonCanonical), ("Zm9=", .nonCanonical), ("QR==", .nonCanonical), ("Zm-v", .invalidCharacter),
        ]
        for (text, expected) in standard {
            XCTAssertThrowsError(try Base64.decode(text, alphabet: .standard), "for \(text)") { error in
                XCTAssertEqual(error as? Base64.DecodingError, expected, "for \(text)")
            }
        }
        let url: [(String, Base64.DecodingError)] = [
            ("Zg==", .invalidCharacter), ("Z", .invalidLength), ("Zh", .nonCanonical), ("Zm+v", .invalidCharacter),
        ]
        for (text, expected) in url {
            XCTAssertThrowsError(try Base64.decode(text, alphabet: .url), "for \(text)") { error in
                XCTAssertEqual(error as? Base64.DecodingError, expected, "for \(text)")
            }
        }
    }

    func testRoundTrip_ofEveryLengthUpTo64() throws {
        for length in 0...64 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 37 + 11) }
            for alphabet in [Base64.Alphabet.standard, .url] {
                let encoded = Base64.encodedString(bytes, alphabet: alphabet)
                XCTAssertEqual(try Base64.decode(encoded, alphabet: alphabet), bytes, "length \(length)")
            }
        }
    }

    func testDecodeIntoSecret_fillsTheSecret_andRefusesOverflow() throws {
        let token = Array("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8".utf8)
        let secret = try SecretBytes(capacity: 32)
        try token.withUnsafeBytes { try Base64.decode($0, alphabet: .url, into: secret) }
        XCTAssertEqual(contents(of: secret), Array(0..<32))

        let small = try SecretBytes(capacity: 31)
        XCTAssertThrowsError(try token.withUnsafeBytes { try Base64.decode($0, alphabet: .url, into: small) }) { error in
            XCTAssertEqual(error as? Base64.DecodingError, .tooLong)
        }
        XCTAssertEqual(small.count, 0)
    }

    func testMaximumDecodedLength_boundsTheActualLength() throws {
        for length in 0...20 {
            let encoded = Base64.encodedString([UInt8](repeating: 0xAB, count: length), alphabet: .url)
            XCTAssertGreaterThanOrEqual(Base64.maximumDecodedLength(encodedCount: encoded.utf8.count), length)
        }
    }
}
