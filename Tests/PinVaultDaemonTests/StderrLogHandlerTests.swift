import Logging
import XCTest

@testable import PinVaultDaemon

final class StderrLogHandlerTests: XCTestCase {
    func testEscaped_turnsControlCharactersIntoVisibleEscapes() {
        XCTAssertEqual(StderrLogHandler.escaped("a\nb\tc\u{1b}[31m"), "a\\nb\\tc\\x1b[31m")
        XCTAssertEqual(StderrLogHandler.escaped("plain ünïcode"), "plain ünïcode")
    }

    func testEscaped_makesC1BidiSeparatorsAndBOMVisible() {
        XCTAssertEqual(StderrLogHandler.escaped("a\u{85}b\u{9B}c\u{1}"), "a\\x85b\\x9bc\\x01")
        XCTAssertEqual(StderrLogHandler.escaped("alice\u{202E}nimda\u{2066}\u{200F}"), "alice\\u202enimda\\u2066\\u200f")
        XCTAssertEqual(StderrLogHandler.escaped("one\u{2028}two\u{2029}\u{FEFF}\u{61C}"), "one\\u2028two\\u2029\\ufeff\\u061c")
    }

    func testEscaped_leavesJoinersAndOtherScriptsAlone() {
        let text = "👩\u{200D}💻 می\u{200C}خواهم שלום"
        XCTAssertEqual(StderrLogHandler.escaped(text), text)
    }

    func testPriority_followsSyslogLevels() {
        XCTAssertEqual(StderrLogHandler.priority(.debug), 7)
        XCTAssertEqual(StderrLogHandler.priority(.info), 6)
        XCTAssertEqual(StderrLogHandler.priority(.notice), 5)
        XCTAssertEqual(StderrLogHandler.priority(.warning), 4)
        XCTAssertEqual(StderrLogHandler.priority(.error), 3)
        XCTAssertEqual(StderrLogHandler.priority(.critical), 2)
    }
}
