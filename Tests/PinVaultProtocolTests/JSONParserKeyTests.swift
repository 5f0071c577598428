@testable import PinVaultProtocol
import XCTest

/// Duplicate keys are found whether the object is checked in place (few members) or
/// through a set (many), and whether the keys are spelled with escapes or without.
final class JSONParserKeyTests: XCTestCase {
    private let limit = JSONParser.inPlaceKeyCheckLimit

    private func object(_ keys: [String]) -> [UInt8] {
        Array(("{" + keys.map { "\"\($0)\":[{\"x\":1}]" }.joined(separator: ",") + "}").utf8)
    }

    func testDistinctKeys_parse_onEitherSideOfTheLimit() {
        for count in [0, 1, 2, limit - 1, limit, limit + 1, 3 * limit] {
            let keys = (0..<count).map { "k\($0)" }
            XCTAssertNil(parseError(object(keys)), "\(count) keys")
        }
    }

    func testARepeatedKey_isRefused_whereverItFalls() {
        for count in [2, limit - 1, limit, limit + 1, limit + 2, 3 * limit] {
            for (first, second) in [(0, count - 1), (count - 2, count - 1), (0, 1)] {
                var keys = (0..<count).map { "k\($0)" }
                keys[second] = keys[first]
                XCTAssertEqual(parseError(object(keys))?.reason, .duplicateKey, "\(count) keys, \(first) and \(second)")
            }
        }
    }

    func testAKeySpelledWithAnEscape_isTheSameKey() {
        for count in [2, limit, limit + 1, 2 * limit] {
            var keys = (0..<count).map { "k\($0)" }
            keys[count - 1] = "\\u006b0"  // "k0"
            XCTAssertEqual(parseError(object(keys))?.reason, .duplicateKey, "\(count) keys")
            keys[0] = "\\u006b0"
            XCTAssertEqual(parseError(object(keys))?.reason, .duplicateKey, "\(count) keys, both escaped")
        }
    }

    func testKeysOfEqualLengthOrSharedPrefix_areDistinct() {
        XCTAssertNil(parseError(Array(#"{"ab":1,"ba":2,"a":3,"abc":4,"":5}"#.utf8)))
        XCTAssertEqual(parseError(Array(#"{"":1,"a":2,"":3}"#.utf8))?.reason, .duplicateKey)
    }

    func testTheSameKeyInNestedObjects_isNoDuplicate() {
        XCTAssertNil(parseError(Array(#"{"a":{"a":{"a":1}},"b":{"a":2}}"#.utf8)))
        XCTAssertEqual(parseError(Array(#"{"a":{"b":1,"b":2}}"#.utf8))?.reason, .duplicateKey)
    }

    func testStringEqualsAndString_readKeysWithAndWithoutEscapes() throws {
        try withDocument(#"{"method":1,"\u006dethod2":2}"#) { document in
            let keys = document.members(of: document.root).map(\.key)
            XCTAssertTrue(document.stringEquals(keys[0], "method"))
            XCTAssertFalse(document.stringEquals(keys[0], "metho"))
            XCTAssertFalse(document.stringEquals(keys[0], "methoD"))
            XCTAssertTrue(document.stringEquals(keys[1], "method2"))
            XCTAssertFalse(document.stringEquals(keys[1], "method"))
            XCTAssertEqual(document.string(keys[0]), "method")
            XCTAssertEqual(document.string(keys[1]), "method2")
        }
    }
}
