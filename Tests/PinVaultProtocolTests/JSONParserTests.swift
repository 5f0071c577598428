import PinVaultCrypto
@testable import PinVaultProtocol
import XCTest

final class JSONParserTests: XCTestCase {
    func testParse_acceptsEveryRFC8259ValueKind() throws {
        let accepted = [
            "{}", "[]", "\"\"", "0", "-0", "1", "-12", "1.5", "1e3", "1E+3", "-1.25e-7", "true", "false", "null",
            " \t\r\n{ \"a\" : [ 1 , 2 ] , \"b\" : { } } \n", "[[[]]]", "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\"",
            "\"h\u{e9}llo \u{1F600}\"", "\"\\ud83d\\ude00\"",
        ]
        for text in accepted {
            XCTAssertNil(parseError(Array(text.utf8)), "should accept \(text)")
        }
    }

    func testParse_rejectsMalformedInputWithTheRightReason() {
        let rejected: [(String, JSONError.Reason)] = [
            ("", .unexpectedEnd),
            ("   ", .unexpectedEnd),
            ("{", .unexpectedEnd),
            ("[1,", .unexpectedEnd),
            ("\"abc", .unexpectedEnd),
            ("{\"a\"}", .unexpectedByte),
            ("{\"a\":1,}", .unexpectedByte),
            ("[1,]", .unexpectedByte),
            ("[1 2]", .unexpectedByte),
            ("{'a':1}", .unexpectedByte),
            ("{a:1}", .unexpectedByte),
            ("NaN", .unexpectedByte),
            ("Infinity", .unexpectedByte),
            ("tru", .unexpectedEnd),
            ("nul!", .unexpectedByte),
            ("01", .invalidNumber),
            ("-01", .invalidNumber),
            ("-", .unexpectedEnd),
            ("-a", .invalidNumber),
            ("1.", .unexpectedEnd),
            ("1.e3", .invalidNumber),
            ("1e", .unexpectedEnd),
            ("1e+", .unexpectedEnd),
            (".5", .unexpectedByte),
            ("+1", .unexpectedByte),
            ("\"\\x\"", .invalidEscape),
            ("\"\\u12G4\"", .invalidEscape),
            ("\"\\ud800\"", .loneSurrogate),
            ("\"\\udc00\"", .loneSurrogate),
            ("\"\\ud800\\u0041\"", .loneSurrogate),
            ("\"a\tb\"", .controlCharacter),
            ("\"a\nb\"", .controlCharacter),
            ("{} {}", .trailingData),
            ("1 x", .trailingData),
            ("{\"a\":1,\"a\":2}", .duplicateKey),
            ("{\"a\":1,\"\\u0061\":2}", .duplicateKey),
        ]
        for (text, reason) in rejected {
            XCTAssertEqual(parseError(Array(text.utf8))?.reason, reason, "for \(text)")
        }
    }

    func testParse_rejectsInvalidUTF8InStrings() {
        let sequences: [[UInt8]] = [
            [0x80], [0xC0, 0xAF], [0xC1, 0xBF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80],
            [0xF0, 0x80, 0x80, 0xAF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF], [0xC3],
            [0xE2, 0x82],
        ]
        for sequence in sequences {
            let bytes = [UInt8(ascii: "\"")] + sequence + [UInt8(ascii: "\"")]
            XCTAssertEqual(parseError(bytes)?.reason, .invalidUTF8, "for \(sequence)")
        }
    }

    func testParse_acceptsWellFormedMultibyteUTF8() {
        let sequences: [[UInt8]] = [[0xC3, 0xA9], [0xE2, 0x82, 0xAC], [0xEF, 0xBF, 0xBF], [0xF0, 0x9F, 0x98, 0x80], [0xF4, 0x8F, 0xBF, 0xBF]]
        for sequence in sequences {
            XCTAssertNil(parseError([UInt8(ascii: "\"")] + sequence + [UInt8(ascii: "\"")]), "for \(sequence)")
        }
    }

    func testParse_atDepthLimit_succeeds_andOneDeeper_fails() {
        let limit = ProtocolLimits.maxJSONDepth
        let atLimit = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        let tooDeep = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        XCTAssertNil(parseError(Array(atLimit.utf8)))
        XCTAssertEqual(parseError(Array(tooDeep.utf8))?.reason, .tooDeep)
    }

    func testParse_ofHugelyNestedInput_failsFastWithoutRecursing() {
        let hostile = [UInt8](repeating: UInt8(ascii: "["), count: 1_000_000)
        XCTAssertEqual(parseError(hostile)?.reason, .tooDeep)
        let objects = Array(String(repeating: "{\"a\":", count: 100_000).utf8)
        XCTAssertEqual(parseError(objects)?.reason, .tooDeep)
    }

    func testInt64_ofIntegers_isExact_andOfOtherNumbers_isNil() throws {
        let cases: [(String, Int64?)] = [
            ("0", 0), ("-0", 0), ("42", 42), ("-42", -42),
            ("9223372036854775807", .max), ("-9223372036854775808", .min),
            ("9223372036854775808", nil), ("-9223372036854775809", nil),
            ("1" + String(repeating: "0", count: 5000), nil),
            ("1.0", nil), ("1e3", nil), ("1.5", nil),
        ]
        for (text, expected) in cases {
            let value = try withDocument(text) { $0.int64($0.root) }
            XCTAssertEqual(value, expected, "for \(text.prefix(30))")
        }
    }

    func testNodes_describeObjectsInPreorderWithSubtreeEnds() throws {
        try withDocument("{\"a\":[1,{\"b\":null}],\"c\":true}") { document in
            XCTAssertEqual(document[0].kind, .object)
            XCTAssertEqual(document[0].childCount, 2)
            let members = document.members(of: 0)
            XCTAssertEqual(members.count, 2)
            XCTAssertEqual(document.string(members[0].key), "a")
            XCTAssertEqual(document.elements(of: members[0].value).count, 2)
            XCTAssertEqual(document.string(members[1].key), "c")
            XCTAssertEqual(document.bool(members[1].value), true)
            XCTAssertEqual(document.member("c", of: 0), members[1].value)
            XCTAssertNil(document.member("b", of: 0))
            XCTAssertEqual(document[0].subtreeEnd, document.nodes.count)
        }
    }

    func testString_withEscapes_decodesToUTF8() throws {
        let cases: [(String, String)] = [
            ("\"\\u0031\\u0032\"", "12"),
            ("\"\\ud83d\\ude00\"", "\u{1F600}"),
            ("\"\\u00e9\\u20AC\"", "\u{e9}\u{20AC}"),
            ("\"a\\\"b\\\\c\\/d\\n\"", "a\"b\\c/d\n"),
            ("\"\\u0000\"", "\u{0}"),
        ]
        for (json, expected) in cases {
            try withDocument(json) { document in
                XCTAssertEqual(document.string(document.root), expected, "for \(json)")
                XCTAssertEqual(document.decodedLength(document.root), expected.utf8.count, "for \(json)")
            }
        }
    }

    func testSecret_withEscapes_decodesStraightIntoSecretBytes() throws {
        try withDocument("[\"\\u0031\\u00323\\ud83d\\ude00\", \"plain\"]") { document in
            let elements = document.elements(of: document.root)
            let escaped = try XCTUnwrap(try document.secret(elements[0]))
            XCTAssertEqual(contents(of: escaped), Array("123\u{1F600}".utf8))
            let plain = try XCTUnwrap(try document.secret(elements[1]))
            XCTAssertEqual(contents(of: plain), Array("plain".utf8))
        }
    }

    func testSecret_ofANonString_isNil() throws {
        try withDocument("123") { document in
            XCTAssertNil(try document.secret(document.root))
        }
    }

    func testParse_ofAFullSizeFrameOfElements_buildsOneNodePerElement() throws {
        let big = "[" + Array(repeating: "1", count: 32_000).joined(separator: ",") + "]"
        try withDocument(big) { document in
            XCTAssertEqual(document.nodes.count, 32_001)
            XCTAssertEqual(document[document.root].childCount, 32_000)
        }
    }

    func testParse_ofAnObjectWithManyDistinctKeys_detectsALateDuplicate() {
        let members = (0..<5_000).map { "\"k\($0)\":0" }.joined(separator: ",")
        XCTAssertNil(parseError(Array("{\(members)}".utf8)))
        XCTAssertEqual(parseError(Array("{\(members),\"k17\":1}".utf8))?.reason, .duplicateKey)
    }
}
