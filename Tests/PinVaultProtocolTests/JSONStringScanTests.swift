import PinVaultCrypto
import XCTest

@testable import PinVaultProtocol

/// Strings are scanned eight bytes at a time while they hold only plain ASCII
/// (`JSONParser.skipPlainASCII`): every byte that needs the byte loop — a quote, a
/// backslash, a control byte, a non-ASCII byte — must stop the fast scan wherever it
/// falls in a word, with the same verdict and offset as the byte loop gives.
final class JSONStringScanTests: XCTestCase {
    /// `"` + `prefix` plain bytes + `special` + `suffix` plain bytes + `"`.
    private func string(prefix: Int, _ special: [UInt8], suffix: Int) -> [UInt8] {
        [UInt8(ascii: "\"")] + Array(repeating: UInt8(ascii: "a"), count: prefix) + special
            + Array(repeating: UInt8(ascii: "b"), count: suffix) + [UInt8(ascii: "\"")]
    }

    func testEveryPlainLength_parses() {
        for length in 0..<40 {
            XCTAssertNil(parseError(string(prefix: length, [], suffix: 0)), "length \(length)")
        }
    }

    func testAControlByte_atEveryOffset_isRefusedAtThatOffset() {
        for prefix in 0..<20 {
            for control: UInt8 in [0x00, 0x01, 0x0A, 0x1F] {
                let error = parseError(string(prefix: prefix, [control], suffix: 9))
                XCTAssertEqual(error, JSONError(.controlCharacter, at: 1 + prefix), "prefix \(prefix), byte \(control)")
            }
        }
    }

    func testAnEscape_atEveryOffset_isRead() throws {
        for prefix in 0..<20 {
            let bytes = string(prefix: prefix, Array(#"\"\\\u00e9"#.utf8), suffix: 9)
            let value = try bytes.withUnsafeBytes { raw in
                let document = try JSONDocument.parse(raw)
                return document.string(document.root)
            }
            XCTAssertEqual(value, String(repeating: "a", count: prefix) + "\"\\\u{e9}" + String(repeating: "b", count: 9))
        }
    }

    func testAnEndingQuote_atEveryOffset_endsTheString() throws {
        for length in 0..<20 {
            let bytes = Array(#"{"k":""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: length) + Array(#"","z":1}"#.utf8)
            XCTAssertNil(parseError(bytes), "length \(length)")
        }
    }

    func testNonASCII_atEveryOffset_isCheckedAsUTF8() {
        for prefix in 0..<20 {
            XCTAssertNil(parseError(string(prefix: prefix, Array("é😀".utf8), suffix: 9)), "prefix \(prefix)")
            XCTAssertEqual(
                parseError(string(prefix: prefix, [0xFF], suffix: 9)), JSONError(.invalidUTF8, at: 1 + prefix),
                "prefix \(prefix)"
            )
            XCTAssertEqual(parseError(string(prefix: prefix, [0x7F], suffix: 9)), nil, "DEL is not a control byte in JSON")
        }
    }
}
