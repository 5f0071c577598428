import Glibc
import PinVaultCrypto
import XCTest
@testable import PinVaultStore

final class PepperFileTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var state: String { directory.path }
    private var pepperPath: String { directory.file("pepper") }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory = nil
    }

    private func bytes(of pepper: Pepper) -> [UInt8] {
        pepper.secret.withUnsafeBytes { Array($0) }
    }

    private func assertRefused(
        credentials: String? = nil, recordsExist: Bool = false, path: String, reason: PepperError.Reason,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(
            try PepperFile.load(credentialsDirectory: credentials, stateDirectory: state, recordsExist: recordsExist),
            file: file, line: line
        ) { error in
            XCTAssertEqual(error as? PepperError, PepperError(path: path, reason: reason), file: file, line: line)
        }
    }

    func testLoad_whenAbsentAndNoRecords_creates0600Once_andReloadsSameBytes() throws {
        let (created, source) = try PepperFile.load(credentialsDirectory: nil, stateDirectory: state, recordsExist: false)
        XCTAssertEqual(source, .created(path: pepperPath))
        XCTAssertEqual(try permissions(of: pepperPath), 0o600)
        XCTAssertEqual(try readFile(pepperPath), bytes(of: created))
        XCTAssertNotEqual(bytes(of: created), Array(repeating: 0, count: 32))

        let (reloaded, again) = try PepperFile.load(credentialsDirectory: nil, stateDirectory: state, recordsExist: true)
        XCTAssertEqual(again, .stateFile(path: pepperPath))
        XCTAssertTrue(reloaded.secret.constantTimeEquals(created.secret))
    }

    func testLoad_underRestrictiveUmask_createsReadableFile() throws {
        let old = umask(0o277)
        defer { umask(old) }
        let (created, _) = try PepperFile.load(credentialsDirectory: nil, stateDirectory: state, recordsExist: false)
        XCTAssertEqual(try permissions(of: pepperPath), 0o600)
        let (reloaded, _) = try PepperFile.load(credentialsDirectory: nil, stateDirectory: state, recordsExist: false)
        XCTAssertTrue(reloaded.secret.constantTimeEquals(created.secret))
    }

    func testLoad_whenAbsentButRecordsExist_refuses_andCreatesNothing() throws {
        assertRefused(recordsExist: true, path: pepperPath, reason: .missingWithRecords)
        var status = stat()
        XCTAssertEqual(lstat(pepperPath, &status), -1, "no new pepper was made")
    }

    func testLoad_whenStateFileTooShort_refuses_evenWithoutRecords() throws {
        try writeFile(pepperPath, Array(repeating: 7, count: 31))
        assertRefused(path: pepperPath, reason: .wrongSize(31))
    }

    func testLoad_whenStateFileTooLong_refuses() throws {
        try writeFile(pepperPath, Array(repeating: 7, count: 64))
        assertRefused(path: pepperPath, reason: .wrongSize(33))
    }

    func testLoad_whenStateFileEmpty_refuses() throws {
        try writeFile(pepperPath, [])
        assertRefused(recordsExist: true, path: pepperPath, reason: .wrongSize(0))
    }

    func testLoad_whenStateFileGroupReadable_refuses() throws {
        try writeFile(pepperPath, Array(repeating: 7, count: 32), mode: 0o640)
        assertRefused(path: pepperPath, reason: .accessibleByOthers(mode: 0o640))
    }

    func testLoad_whenStateFileIsSymlink_refuses() throws {
        let target = directory.file("elsewhere")
        try writeFile(target, Array(repeating: 7, count: 32))
        XCTAssertEqual(symlink(target, pepperPath), 0)
        assertRefused(path: pepperPath, reason: .symlink)
    }

    func testLoad_whenStateFileIsDirectory_refuses() throws {
        XCTAssertEqual(mkdir(pepperPath, 0o700), 0)
        assertRefused(path: pepperPath, reason: .notRegularFile)
    }

    func testLoad_whenStateFileIsFifo_refusesWithoutHanging() throws {
        XCTAssertEqual(mkfifo(pepperPath, 0o600), 0)
        assertRefused(path: pepperPath, reason: .notRegularFile)
    }

    func testLoad_prefersCredentialsDirectory_overStateFile() throws {
        let credentials = directory.file("credentials")
        XCTAssertEqual(mkdir(credentials, 0o700), 0)
        let credentialBytes = (0..<32).map { UInt8($0) }
        // systemd hands credentials out read-only; the mode is its business, not ours.
        try writeFile(credentials + "/pinvault.pepper", credentialBytes, mode: 0o440)
        try writeFile(pepperPath, credentialBytes)

        let (pepper, source) = try PepperFile.load(
            credentialsDirectory: credentials, stateDirectory: state, recordsExist: true)
        XCTAssertEqual(source, .credentials(path: credentials + "/pinvault.pepper"))
        XCTAssertEqual(bytes(of: pepper), credentialBytes)
    }

    func testLoad_whenTheCredentialDiffersFromTheStateFile_refuses_namingBoth() throws {
        let credentials = directory.file("credentials")
        XCTAssertEqual(mkdir(credentials, 0o700), 0)
        try writeFile(credentials + "/pinvault.pepper", (0..<32).map { UInt8($0) }, mode: 0o440)
        try writeFile(pepperPath, Array(repeating: 9, count: 32))
        for recordsExist in [true, false] {
            assertRefused(credentials: credentials, recordsExist: recordsExist, path: credentials + "/pinvault.pepper",
                          reason: .differsFromStateFile(pepperPath))
        }
    }

    func testLoad_whenCredentialsDirectoryLacksPepper_fallsBackToStateFile() throws {
        let credentials = directory.file("credentials")
        XCTAssertEqual(mkdir(credentials, 0o700), 0)
        try writeFile(pepperPath, Array(repeating: 9, count: 32))
        let (pepper, source) = try PepperFile.load(
            credentialsDirectory: credentials, stateDirectory: state, recordsExist: true)
        XCTAssertEqual(source, .stateFile(path: pepperPath))
        XCTAssertEqual(bytes(of: pepper), Array(repeating: 9, count: 32))
    }

    func testLoad_whenCredentialWrongSize_refuses_withoutFallingBack() throws {
        let credentials = directory.file("credentials")
        XCTAssertEqual(mkdir(credentials, 0o700), 0)
        try writeFile(credentials + "/pinvault.pepper", Array(repeating: 1, count: 16))
        try writeFile(pepperPath, Array(repeating: 9, count: 32))
        assertRefused(credentials: credentials, path: credentials + "/pinvault.pepper", reason: .wrongSize(16))
    }

    func testError_namesPathAndReason_neverContents() throws {
        try writeFile(pepperPath, Array("SECRETSECRETSECRETSECRETSECRET".utf8))
        do {
            _ = try PepperFile.load(credentialsDirectory: nil, stateDirectory: state, recordsExist: true)
            XCTFail("a 30-byte pepper was accepted")
        } catch {
            let text = "\(error)"
            XCTAssertEqual(text, "pepper \(pepperPath): holds 30 bytes, not 32")
            XCTAssertFalse(text.contains("SECRET"))
        }
    }
}
