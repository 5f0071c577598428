import Glibc
import PinVaultSystem
import XCTest
@testable import PinVaultStore

final class StateDirectoryTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory = nil
    }

    private func assertRefused(
        _ path: String, _ reason: StateDirectoryError.Reason, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try StateDirectory.prepare(path: path), file: file, line: line) { error in
            XCTAssertEqual(error as? StateDirectoryError, StateDirectoryError(path: path, reason: reason),
                           file: file, line: line)
        }
    }

    func testPrepare_whenMissing_createsDirectory0700() throws {
        let path = directory.file("state")
        try StateDirectory.prepare(path: path)
        XCTAssertEqual(try permissions(of: path), 0o700)
        try StateDirectory.prepare(path: path)  // idempotent
    }

    func testPrepare_whenParentMissing_failsWithSystemError() throws {
        let path = directory.file("missing/state")
        assertRefused(path, .system(SystemError(call: "mkdir", errno: ENOENT)))
    }

    func testPrepare_whenGroupWritable_refuses() throws {
        let path = directory.file("state")
        XCTAssertEqual(mkdir(path, 0o700), 0)
        XCTAssertEqual(chmod(path, 0o770), 0)
        assertRefused(path, .writableByOthers(mode: 0o770))
    }

    func testPrepare_whenWorldWritable_refuses() throws {
        let path = directory.file("state")
        XCTAssertEqual(mkdir(path, 0o700), 0)
        XCTAssertEqual(chmod(path, 0o1777), 0)
        assertRefused(path, .writableByOthers(mode: 0o1777))
    }

    func testPrepare_whenReadableButNotWritableByOthers_accepts() throws {
        let path = directory.file("state")
        XCTAssertEqual(mkdir(path, 0o700), 0)
        XCTAssertEqual(chmod(path, 0o755), 0)
        XCTAssertNoThrow(try StateDirectory.prepare(path: path))
    }

    func testPrepare_whenSymlinkToDirectory_refuses() throws {
        let target = directory.file("real")
        XCTAssertEqual(mkdir(target, 0o700), 0)
        let path = directory.file("state")
        XCTAssertEqual(symlink(target, path), 0)
        assertRefused(path, .symlink)
    }

    func testPrepare_whenRegularFile_refuses() throws {
        let path = directory.file("state")
        try writeFile(path, [1, 2, 3])
        assertRefused(path, .notDirectory)
    }

    func testError_namesPathAndReason() {
        let error = StateDirectoryError(path: "/var/lib/pinvault", reason: .writableByOthers(mode: 0o775))
        XCTAssertEqual(error.description, "state directory /var/lib/pinvault: mode 0775 lets group or others write")
    }
}
