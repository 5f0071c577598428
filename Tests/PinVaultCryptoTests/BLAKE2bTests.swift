import XCTest

@testable import PinVaultCrypto

/// Known answers from the reference `blake2b-kat.txt` (keyed: key = 00 01 … 3f,
/// input i = 00 01 … (i−1), 64-byte output) and BLAKE2b-256 of "abc".
final class BLAKE2bTests: XCTestCase {
    private let katKey = [UInt8](0..<64)

    private let keyedKAT: [(inputLength: Int, digest: String)] = [
        (0, "10ebb67700b1868efb4417987acf4690ae9d972fb7a590c2f02871799aaa4786"
            + "b5e996e8f0f4eb981fc214b005f42d2ff4233499391653df7aefcbc13fc51568"),
        (1, "961f6dd1e4dd30f63901690c512e78e4b45e4742ed197c3c5e45c549fd25f2e4"
            + "187b0bc9fe30492b16b0d0bc4ef9b0f34c7003fac09a5ef1532e69430234cebd"),
        (2, "da2cfbe2d8409a0f38026113884f84b50156371ae304c4430173d08a99d9fb1b"
            + "983164a3770706d537f49e0c916d9f32b95cc37a95b99d857436f0232c88a965"),
        (255, "142709d62e28fcccd0af97fad0f8465b971e82201dc51070faa0372aa43e9248"
            + "4be1c1e73ba10906d5d1853db6a4106e0a7bf9800d373d6dee2d46d62ef2a461"),
    ]

    func testKeyedHash_referenceKATVectors_match() throws {
        for vector in keyedKAT {
            let input = [UInt8](0..<UInt8(vector.inputLength))
            let digest = try input.withUnsafeBytes { message in
                try katKey.withUnsafeBytes { key in
                    try BLAKE2b.hash(message, key: key, outputLength: 64)
                }
            }
            XCTAssertEqual(digest.hex, vector.digest, "input length \(vector.inputLength)")
        }
    }

    func testHash_ofABCWith32ByteOutput_isTheKnownBLAKE2b256() throws {
        let digest = try Array("abc".utf8).withUnsafeBytes { try BLAKE2b.hash($0) }
        XCTAssertEqual(digest.hex, "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319")
    }

    func testHash_ofEmptyMessage_isTheKnownBLAKE2b256() throws {
        let digest = try [UInt8]().withUnsafeBytes { try BLAKE2b.hash($0) }
        XCTAssertEqual(digest.hex, "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8")
    }

    func testHash_intoSecretBytes_matchesTheArrayVariant() throws {
        let message = Array("box key input".utf8)
        let expected = try message.withUnsafeBytes { message in
            try katKey.withUnsafeBytes { try BLAKE2b.hash(message, key: $0) }
        }
        let output = try SecretBytes(zeroed: 32)
        try message.withUnsafeBytes { message in
            try katKey.withUnsafeBytes { try BLAKE2b.hash(message, key: $0, into: output) }
        }
        XCTAssertEqual(contents(output), expected)
    }

    func testHash_withOutputLengthOutside16To64_throwsInvalidLength() {
        let message = [UInt8]()
        for length in [0, 15, 65] {
            assertThrows(.invalidLength("output")) {
                try message.withUnsafeBytes { try BLAKE2b.hash($0, outputLength: length) }
            }
        }
    }

    func testHash_withKeyOutside16To64_throwsInvalidLength() {
        let message = [UInt8]()
        // An empty key must not silently mean "unkeyed".
        for key in [[UInt8](), [UInt8](repeating: 1, count: 15), [UInt8](repeating: 1, count: 65)] {
            assertThrows(.invalidLength("key")) {
                try message.withUnsafeBytes { message in
                    try key.withUnsafeBytes { try BLAKE2b.hash(message, key: $0) }
                }
            }
        }
    }
}
