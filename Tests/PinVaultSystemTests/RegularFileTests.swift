import Glibc
import PinVaultSystem
import XCTest

final class RegularFileTests: XCTestCase {
    func testRead_returnsTheWholeFile_acrossSeveralChunks() throws {
        let scratch = try ScratchDirectory()
        let contents = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let path = try scratch.file("big", contents)
        XCTAssertEqual(try RegularFile.read(path: path, maxBytes: 1 << 20), contents)
        XCTAssertEqual(try RegularFile.read(path: try scratch.file("empty", []), maxBytes: 10), [])
    }

    func testRead_refusesAFileLargerThanTheLimit() throws {
        let scratch = try ScratchDirectory()
        let path = try scratch.file("eleven", Array("hello world".utf8))
        XCTAssertEqual(try RegularFile.read(path: path, maxBytes: 11), Array("hello world".utf8))
        XCTAssertThrowsError(try RegularFile.read(path: path, maxBytes: 10)) {
            XCTAssertEqual($0 as? RegularFile.Failure, .tooLarge(limit: 10))
        }
    }

    func testRead_refusesADirectoryAndAFIFO_withoutHanging() throws {
        let scratch = try ScratchDirectory()
        XCTAssertThrowsError(try RegularFile.read(path: scratch.path, maxBytes: 10)) {
            XCTAssertEqual($0 as? RegularFile.Failure, .notRegular)
        }
        // No writer ever opens it: a blocking open would wait forever.
        let fifo = try scratch.file("fifo")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        XCTAssertThrowsError(try RegularFile.read(path: fifo, maxBytes: 10)) {
            XCTAssertEqual($0 as? RegularFile.Failure, .notRegular)
        }
    }

    func testRead_ofAMissingFile_cannotOpen_withENOENT() throws {
        let scratch = try ScratchDirectory()
        XCTAssertThrowsError(try RegularFile.read(path: scratch.path + "/missing", maxBytes: 10)) { error in
            XCTAssertEqual(error as? RegularFile.Failure, .cannotOpen(SystemError(call: "open", errno: ENOENT)))
            XCTAssertEqual("\(error)", "cannot open: No such file or directory")
        }
    }
}
