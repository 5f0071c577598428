import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// `packaging/pinvault-seal-pepper` (docs/OPERATIONS.md, "The pepper"), run as the shell
/// script it is, in a scratch directory, with the real `systemd-creds` and a scratch host
/// key: it refuses to mint a pepper over a vault with credentials when none is at hand,
/// refuses a `<state>/pepper` the vault was not sealed with, never changes the mode of a
/// directory it did not create, and otherwise seals (the Debian postinst runs it so).
final class SealPepperScriptTests: XCTestCase {
    private static let script = TestDaemon.repositoryRoot + "/packaging/pinvault-seal-pepper"
    private var creds = ""
    private var scratch = ""
    private var environment: [String: String] = [:]

    override func setUpWithError() throws {
        guard let found = ["/usr/bin/systemd-creds", "/bin/systemd-creds"].first(where: {
            FileManager.default.isExecutableFile(atPath: $0)
        }) else {
            print("SealPepperScriptTests: SKIPPED — systemd-creds is not installed, so pinvault-seal-pepper was NOT tested")
            throw XCTSkip("systemd-creds is not installed: pinvault-seal-pepper is not tested")
        }
        creds = found
        var template = Array("/tmp/pinvault-seal-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        scratch = String(cString: made)
        environment = ProcessInfo.processInfo.environment
        // A scratch host key instead of /var/lib/systemd/credential.secret.
        environment["SYSTEMD_CREDENTIAL_SECRET"] = scratch + "/credential.secret"
    }

    override func tearDownWithError() throws {
        if !scratch.isEmpty { try? FileManager.default.removeItem(atPath: scratch) }
    }

    private func seal(state: String, output: String) throws -> Subprocess.Result {
        try Subprocess.run("/bin/sh", [Self.script, "--with-key=host", "--state-directory=\(state)", "--output=\(output)"],
                           environment: environment)
    }

    private func decrypt(_ sealed: String) throws -> [UInt8] {
        let plain = scratch + "/decrypted-\(UUID().uuidString)"
        let result = try Subprocess.run(creds, ["decrypt", "--name=pinvault.pepper", sealed, plain], environment: environment)
        XCTAssertEqual(result.status, 0, result.description)
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: plain)))
    }

    private func mode(of path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
    }

    /// A real vault: pinvaultd made the state directory, its pepper and one credential.
    private func vaultWithACredential() throws -> TestDaemon {
        let daemon = try TestDaemon()
        try daemon.start()
        try daemon.connect().register(user: "alice", pin: "258046")
        XCTAssertEqual(try daemon.stop(), 0, daemon.log)
        return daemon
    }

    func testAVaultWithCredentials_andNoPepperAtHand_isRefused_namingBoth() throws {
        let daemon = try vaultWithACredential()
        XCTAssertEqual(unlink(daemon.stateDirectory + "/pepper"), 0)  // shredded after sealing, say
        let output = scratch + "/credstore/pinvault.pepper"
        let result = try seal(state: daemon.stateDirectory, output: output)
        XCTAssertEqual(result.status, 66, result.description)
        XCTAssertTrue(result.standardError.contains(daemon.stateDirectory + "/vault.sqlite"), result.description)
        XCTAssertTrue(result.standardError.contains(daemon.stateDirectory + "/pepper"), result.description)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output), "a new pepper was sealed over the vault")
    }

    func testTheVaultsOwnPepper_isSealed_andDecryptsToTheSameBytes() throws {
        let daemon = try vaultWithACredential()
        let pepper = [UInt8](try Data(contentsOf: URL(fileURLWithPath: daemon.stateDirectory + "/pepper")))
        let output = scratch + "/credstore/pinvault.pepper"
        let result = try seal(state: daemon.stateDirectory, output: output)
        XCTAssertEqual(result.status, 0, result.description)
        XCTAssertTrue(result.standardOutput.contains("sealed the existing"), result.description)
        XCTAssertEqual(try decrypt(output), pepper)
        XCTAssertEqual(mode(of: scratch + "/credstore"), 0o700, "a directory it made is private")
    }

    func testAStatePepperTheVaultWasNotSealedWith_isRefused() throws {
        let daemon = try vaultWithACredential()
        let path = daemon.stateDirectory + "/pepper"
        let other = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))).map { $0 ^ 0xff }
        try Data(other).write(to: URL(fileURLWithPath: path))
        let output = scratch + "/pinvault.pepper"
        let result = try seal(state: daemon.stateDirectory, output: output)
        XCTAssertEqual(result.status, 65, result.description)
        XCTAssertTrue(result.standardError.contains("is not the pepper"), result.description)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
    }

    func testNoVault_sealsANewPepper_intoAnExistingDirectory_withoutChangingItsMode() throws {
        let existing = scratch + "/etc-like"
        XCTAssertEqual(mkdir(existing, 0o755), 0)
        XCTAssertEqual(chmod(existing, 0o755), 0)
        let result = try seal(state: scratch + "/no-state-yet", output: existing + "/pinvault.pepper")
        XCTAssertEqual(result.status, 0, result.description)
        XCTAssertTrue(result.standardOutput.contains("sealed a new pepper"), result.description)
        XCTAssertEqual(try decrypt(existing + "/pinvault.pepper").count, 32)
        XCTAssertEqual(mode(of: existing), 0o755, "the script changed the mode of a directory it did not create")

        let again = try seal(state: scratch + "/no-state-yet", output: existing + "/pinvault.pepper")
        XCTAssertEqual(again.status, 0, again.description)
        XCTAssertTrue(again.standardOutput.contains("nothing to do"), again.description)
    }

    func testAnEmptyVault_withoutAPepper_getsANewOne() throws {
        let daemon = try TestDaemon()
        try daemon.start()
        XCTAssertEqual(try daemon.stop(), 0, daemon.log)
        XCTAssertEqual(unlink(daemon.stateDirectory + "/pepper"), 0)
        let result = try seal(state: daemon.stateDirectory, output: scratch + "/pinvault.pepper")
        XCTAssertEqual(result.status, 0, result.description)
        XCTAssertTrue(result.standardOutput.contains("sealed a new pepper"), result.description)
    }
}
