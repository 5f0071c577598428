import Foundation
import PinVaultCore
import XCTest

final class DenyListTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "denylist-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func write(_ text: String, to name: String = "list.txt") throws -> String {
        let path = directory + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func contains(_ list: DenyList, _ pin: String) -> Bool {
        var pin = pin
        return pin.withUTF8 { list.contains(UnsafeRawBufferPointer($0)) }
    }

    func testEntries_areFoundExactly() {
        let list = DenyList(entries: ["123456", "000000", "1234"])
        XCTAssertEqual(list.count, 3)
        XCTAssertTrue(contains(list, "123456"))
        XCTAssertTrue(contains(list, "1234"))
        XCTAssertFalse(contains(list, "12345"), "a prefix is not an entry")
        XCTAssertFalse(contains(list, "1234567"), "an extension is not an entry")
        XCTAssertFalse(contains(list, ""))
    }

    func testDuplicatesAndEmptyEntries_countOnceOrNotAtAll() {
        let list = DenyList(entries: ["1111", "1111", "", "2222"])
        XCTAssertEqual(list.count, 2)
    }

    func testEmptyList_containsNothing() {
        XCTAssertEqual(DenyList.empty.count, 0)
        XCTAssertFalse(contains(.empty, "123456"))
    }

    func testThousandsOfEntries_areAllFound_andOthersAreNot() {
        let entries = (0..<20_000).map { String($0 * 2) }
        let list = DenyList(entries: entries)
        XCTAssertEqual(list.count, 20_000)
        for value in stride(from: 0, to: 40_000, by: 1) {
            XCTAssertEqual(contains(list, String(value)), value % 2 == 0, String(value))
        }
    }

    func testEquality_ignoresOrder() {
        XCTAssertEqual(DenyList(entries: ["1", "2"]), DenyList(entries: ["2", "1", "2"]))
        XCTAssertNotEqual(DenyList(entries: ["1", "2"]), DenyList(entries: ["1", "3"]))
        XCTAssertNotEqual(DenyList(entries: ["1"]), DenyList(entries: ["1", "3"]))
    }

    func testFile_skipsCommentsAndBlankLines_andTrimsSpacesAndCR() throws {
        let path = try write("# common PINs\n\n123456\r\n  654321 \t\n   \n#000000\n  # indented comment\n1111\n")
        let list = try DenyList(testFile: path)
        XCTAssertEqual(list.count, 3)
        XCTAssertTrue(contains(list, "123456"))
        XCTAssertTrue(contains(list, "654321"))
        XCTAssertTrue(contains(list, "1111"))
        XCTAssertFalse(contains(list, "000000"))
        XCTAssertFalse(contains(list, "# indented comment"))
    }

    func testFile_withoutFinalNewline_keepsItsLastEntry() throws {
        let list = try DenyList(testFile: try write("1111\n2222"))
        XCTAssertTrue(contains(list, "2222"))
    }

    func testInvalidUTF8_failsNamingTheLine() throws {
        let path = directory + "/bad.txt"
        try Data([0x31, 0x0A, 0x32, 0xFF, 0x0A]).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try DenyList(testFile: path)) { error in
            XCTAssertEqual(error as? DenyListError, DenyListError(path: path, line: 2, reason: "not valid UTF-8"))
            XCTAssertEqual(String(describing: error), "\(path):2: not valid UTF-8")
        }
    }

    func testShippedList_holdsEveryCommonPin_andOnlyDigitStrings() throws {
        let path = repositoryRoot + "/config/deny-list.txt"
        let list = try DenyList(testFile: path)
        let lines = try String(contentsOfFile: path, encoding: .utf8)
            .split(separator: "\n").filter { !$0.hasPrefix("#") }
        XCTAssertEqual(list.count, 2670)
        XCTAssertEqual(lines.count, 2670)
        for line in lines {
            XCTAssertTrue(line.allSatisfy { $0.isASCII && $0.isNumber }, String(line))
            XCTAssertTrue(contains(list, String(line)), String(line))
        }
        XCTAssertEqual(lines.filter { $0.count == 4 }.count, 1000)
        XCTAssertEqual(lines.filter { (6...8).contains($0.count) }.count, 1670)
    }
}

extension DenyList {
    /// The deny list in the file at `path`, read here and parsed by Core (which reads no files).
    init(testFile path: String) throws {
        let contents = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        try self.init(parsing: contents, file: path)
    }
}
