import Foundation
import PinVaultCore
import XCTest

@testable import PinVaultDaemon

/// `policy.deny_list` read from disk: the file's faults, named with its path.
final class DenyListFileTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "denylist-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func testMissingFile_failsNamingThePathAndReason() {
        let path = directory + "/absent.txt"
        XCTAssertThrowsError(try DenyList(contentsOfFile: path)) { error in
            let description = String(describing: error)
            XCTAssertTrue(description.contains(path), description)
            XCTAssertTrue(description.contains("No such file"), description)
        }
    }

    func testDirectory_isRefused() {
        XCTAssertThrowsError(try DenyList(contentsOfFile: directory)) { error in
            XCTAssertEqual((error as? DenyListError)?.reason, "not a regular file")
        }
    }

    func testFile_isParsedAsCoreParsesIt() throws {
        let path = directory + "/list.txt"
        try Data("# common\n123456\r\n 1111 \n".utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(try DenyList(contentsOfFile: path), DenyList(entries: ["123456", "1111"]))
    }
}
