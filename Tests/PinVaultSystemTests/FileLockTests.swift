import Foundation
import Glibc
import PinVaultSystem
import XCTest

/// `FileLock`: one holder at a time, released with the holder, never through a symlink.
final class FileLockTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        var template = Array("/tmp/pinvault-lock-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        directory = String(cString: made)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func testASecondHolder_waitsForTheFirstToRelease() throws {
        let path = directory + "/lock"
        let first = try XCTUnwrap(try FileLock.tryExclusive(path: path))
        XCTAssertNil(try FileLock.tryExclusive(path: path), "two holders at once")
        first.release()
        let second = try XCTUnwrap(try FileLock.tryExclusive(path: path), "released with the holder")
        second.release()
        XCTAssertTrue(FileManager.default.fileExists(atPath: path), "the lock file is kept")
    }

    func testASymlinkAtThePath_isRefused() throws {
        let path = directory + "/lock"
        XCTAssertEqual(symlink(directory + "/elsewhere", path), 0)
        XCTAssertThrowsError(try FileLock.tryExclusive(path: path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory + "/elsewhere"))
    }
}
