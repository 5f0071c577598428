@testable import PinVaultConfiguration
import XCTest

final class TOMLReaderTests: XCTestCase {
    private func parse(_ text: String) throws -> TOMLDocument {
        try TOMLReader.parse(text)
    }

    private func value(_ literal: String) throws -> TOMLValue? {
        try parse("key = \(literal)\n").root["key"]?.value
    }

    private func assertRefused(
        _ text: String, line: Int, saying words: String,
        file: StaticString = #filePath, testLine: UInt = #line
    ) {
        XCTAssertThrowsError(try parse(text), file: file, line: testLine) { error in
            guard let error = error as? TOMLError else {
                return XCTFail("not a TOMLError: \(error)", file: file, line: testLine)
            }
            XCTAssertEqual(error.line, line, "\(error)", file: file, line: testLine)
            XCTAssertTrue(error.message.contains(words), "\(error)", file: file, line: testLine)
        }
    }

    // MARK: - Supported forms

    func testSectionsAndKeys_areReadWithTheirLines() throws {
        let document = try parse("""
            top = 1
            [server]
            a = 2

            [ kdf ]\t# spaced header
            b-c_d = 3
            """)
        XCTAssertEqual(document.root["top"], TOMLEntry(value: .integer(1), line: 1))
        XCTAssertEqual(document.sections.map(\.name), ["server", "kdf"])
        XCTAssertEqual(document[section: "server"]?.line, 2)
        XCTAssertEqual(document[section: "server"]?["a"], TOMLEntry(value: .integer(2), line: 3))
        XCTAssertEqual(document[section: "kdf"]?["b-c_d"], TOMLEntry(value: .integer(3), line: 6))
    }

    func testEmptyTextAndComments_giveAnEmptyDocument() throws {
        XCTAssertEqual(try parse(""), TOMLDocument())
        XCTAssertEqual(try parse("# only a comment\n\n   \t\n# another\n"), TOMLDocument())
    }

    func testCommentsAfterValuesAndCRLFLineEnds_areAccepted() throws {
        let document = try parse("[s]\r\na = \"x#y\" # not part of the string\r\nb = 2\r\n")
        XCTAssertEqual(document[section: "s"]?["a"]?.value, .string("x#y"))
        XCTAssertEqual(document[section: "s"]?["b"], TOMLEntry(value: .integer(2), line: 3))
    }

    func testBasicStrings_resolveEveryEscape() throws {
        XCTAssertEqual(try value(#""a\tb\nc\\d\"e\bf\fg\rh""#), .string("a\tb\nc\\d\"e\u{08}f\u{0C}g\rh"))
        XCTAssertEqual(try value(#""caf\u00e9 \U0001F600""#), .string("café 😀"))
        XCTAssertEqual(try value(#""""#), .string(""))
        XCTAssertEqual(try value("\"tab\tinside and ünïcode\""), .string("tab\tinside and ünïcode"))
    }

    func testLiteralStrings_keepBackslashes() throws {
        XCTAssertEqual(try value(#"'C:\path\n "quoted"'"#), .string(#"C:\path\n "quoted""#))
        XCTAssertEqual(try value("''"), .string(""))
    }

    func testIntegers_takeSignsAndUnderscores() throws {
        XCTAssertEqual(try value("0"), .integer(0))
        XCTAssertEqual(try value("+42"), .integer(42))
        XCTAssertEqual(try value("-17"), .integer(-17))
        XCTAssertEqual(try value("-0"), .integer(0))
        XCTAssertEqual(try value("1_000_000"), .integer(1_000_000))
        XCTAssertEqual(try value("9223372036854775807"), .integer(.max))
        XCTAssertEqual(try value("-9223372036854775808"), .integer(.min))
    }

    func testBooleans() throws {
        XCTAssertEqual(try value("true"), .boolean(true))
        XCTAssertEqual(try value("false"), .boolean(false))
    }

    func testArrays_mayBeEmptySpanLinesHoldCommentsAndEndWithAComma() throws {
        XCTAssertEqual(try value("[]"), .array([]))
        XCTAssertEqual(try value("[ 'a', \"b\" ]"), .array([.string("a"), .string("b")]))
        XCTAssertEqual(try value("[1,2,3,]"), .array([.integer(1), .integer(2), .integer(3)]))
        let document = try parse("""
            groups = [
              "wheel",   # admins
              # a whole-line comment
              "users",
            ]
            after = 1
            """)
        XCTAssertEqual(document.root["groups"]?.value, .array([.string("wheel"), .string("users")]))
        XCTAssertEqual(document.root["after"]?.line, 6)
    }

    // MARK: - Refusals

    func testUnsupportedForms_areRefusedWithTheirLine() {
        assertRefused("[s]\na = { b = 1 }", line: 2, saying: "inline tables are not supported")
        assertRefused("a = 1\n[[s]]", line: 2, saying: "arrays of tables")
        assertRefused("[s]\na.b = 1", line: 2, saying: "dotted keys are not supported")
        assertRefused("[s.t]", line: 1, saying: "dotted keys are not supported")
        assertRefused("\"a\" = 1", line: 1, saying: "quoted keys are not supported")
        assertRefused("\n\na = 1.5", line: 3, saying: "floating-point numbers are not supported")
        assertRefused("a = 1e6", line: 1, saying: "floating-point numbers are not supported")
        assertRefused("a = -inf", line: 1, saying: "floating-point numbers are not supported")
        assertRefused("a = nan", line: 1, saying: "floating-point numbers are not supported")
        assertRefused("a = 1979-05-27", line: 1, saying: "dates and times are not supported")
        assertRefused("a = 1979-05-27T07:32:00Z", line: 1, saying: "dates and times are not supported")
        assertRefused("a = 07:32:00", line: 1, saying: "dates and times are not supported")
        assertRefused("a = 0x1F", line: 1, saying: "hexadecimal, octal and binary integers are not supported")
        assertRefused("a = 0o755", line: 1, saying: "not supported")
        assertRefused("a = 0b101", line: 1, saying: "not supported")
        assertRefused("a = \"\"\"\nmany\nlines\"\"\"", line: 1, saying: "multi-line strings are not supported")
        assertRefused("a = '''\nmany'''", line: 1, saying: "multi-line strings are not supported")
        assertRefused("a = [[1], [2]]", line: 1, saying: "nested arrays are not supported")
        assertRefused("a = [1, \"two\"]", line: 1, saying: "one type")
        assertRefused("a = [true]", line: 1, saying: "only strings or integers")
    }

    func testDuplicates_areRefused() {
        assertRefused("[s]\na = 1\nb = 2\na = 3", line: 4, saying: "key 'a' is defined twice (first on line 2)")
        assertRefused("[s]\n[t]\n[s]", line: 3, saying: "section [s] is defined twice (first on line 1)")
        assertRefused("s = 1\n[s]", line: 2, saying: "section [s] is also a key")
    }

    func testMalformedIntegers_areRefused() {
        assertRefused("a = 007", line: 1, saying: "leading zeros")
        assertRefused("a = 1__0", line: 1, saying: "invalid value")
        assertRefused("a = 10_", line: 1, saying: "invalid value")
        assertRefused("a = _10", line: 1, saying: "invalid value")
        assertRefused("a = 9223372036854775808", line: 1, saying: "out of range")
    }

    func testMalformedStrings_areRefused() {
        assertRefused("a = \"open\nb = 1", line: 1, saying: "unterminated string")
        assertRefused("a = 'open", line: 1, saying: "unterminated string")
        assertRefused(#"a = "bad \q escape""#, line: 1, saying: "invalid escape")
        assertRefused(#"a = "\uD800""#, line: 1, saying: "invalid Unicode escape")
        assertRefused(#"a = "\u12""#, line: 1, saying: "invalid Unicode escape")
        assertRefused(#"a = "\U00110000""#, line: 1, saying: "invalid Unicode escape")
        assertRefused("a = \"nul\u{0}\"", line: 1, saying: "control character")
        assertRefused("a = 'bell\u{7}'", line: 1, saying: "control character")
        assertRefused("# bell\u{7}", line: 1, saying: "control character in a comment")
    }

    func testMalformedLines_areRefused() {
        assertRefused("[s]\na 1", line: 2, saying: "expected '=' after key 'a'")
        assertRefused("a =", line: 1, saying: "expected a value")
        assertRefused("a = # nothing", line: 1, saying: "expected a value")
        assertRefused("a = 1 2", line: 1, saying: "expected the end of the line")
        assertRefused("[s] a = 1", line: 1, saying: "expected the end of the line")
        assertRefused("a = yes", line: 1, saying: "invalid value 'yes'")
        assertRefused("a = bare words", line: 1, saying: "invalid value 'bare'")
        assertRefused("[s\na = 1", line: 1, saying: "expected ']'")
        assertRefused("= 1", line: 1, saying: "expected a key")
        assertRefused("a = 1\rb = 2", line: 1, saying: "expected the end of the line")
        assertRefused("a = [1, 2\nb = 3", line: 2, saying: "expected ',' or ']'")
        assertRefused("a = [1,\n2,\n", line: 3, saying: "unterminated array")
    }
}
