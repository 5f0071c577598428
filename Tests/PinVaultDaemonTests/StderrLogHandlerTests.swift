import Logging
import XCTest

@testable import PinVaultDaemon

final class StderrLogHandlerTests: XCTestCase {
    func testEscaped_turnsControlCharactersIntoVisibleEscapes() {
        XCTAssertEqual(StderrLogHandler.escaped("a\nb\tc\u{1b}[31m"), "a\\nb\\tc\\x1b[31m")
        XCTAssertEqual(StderrLogHandler.escaped("plain ünïcode"), "plain ünïcode")
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
