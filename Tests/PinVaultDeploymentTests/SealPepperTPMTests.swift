import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// `packaging/pinvault-seal-pepper` against a TPM2: a software TPM of the test's own
/// (swtpm), reached by this machine's real systemd-creds through
/// `--tpm2-device=swtpm:path=…`, with the key the postinst asks for (`--with-key=auto`).
/// On Debian 12 (systemd 252) a seal that binds no PCRs does not open there: these tests
/// are what found it. Each seal must open now, after a firmware update, and with pinvaultd.
final class SealPepperTPMTests: XCTestCase {
    private var script: SealPepperScript!
    private var tpm: SoftwareTPM!

    override func setUpWithError() throws {
        if let missing = SoftwareTPM.missing {
            try RootOnlySuites.skip(self, "no software TPM here (apt-get install \(missing))") { XCTSkip($0) }
        }
        guard let made = try SealPepperScript() else {
            try RootOnlySuites.skip(self, "systemd-creds is not installed") { XCTSkip($0) }
        }
        script = made
        tpm = try SoftwareTPM()
    }

    override func tearDownWithError() throws {
        tpm = nil
        script = nil
    }

    /// The script with the TPM named, then the sessions it left flushed (a resource
    /// manager's job on a real machine).
    private func seal(_ arguments: [String]) throws -> Subprocess.Result {
        defer { try? tpm.flush() }
        return try script.run(arguments + ["--tpm2-device=\(tpm.device)"])
    }

    private func decrypt(_ sealed: String) throws -> [UInt8] {
        defer { try? tpm.flush() }
        return try script.decrypt(sealed, device: tpm.device)
    }

    /// The postinst's path, on the vault pinvaultd made before the credential existed:
    /// the seal opens, holds that pepper, still opens after a firmware and Secure Boot
    /// update, and pinvaultd starts from it and opens the credential sealed before.
    func testThePostinstsSeal_opens_survivesAFirmwareUpdate_andServesPinvaultd() throws {
        let pin = "258046"
        let daemon = try SealPepperScript.vaultWithACredential(pin: pin)
        let pepper = try SealPepperScript.pepper(of: daemon)
        let output = script.scratch.path + "/credstore/pinvault.pepper"
        let sealed = try seal(["--with-key=auto", "--state-directory=\(daemon.stateDirectory)", "--output=\(output)"])
        XCTAssertEqual(sealed.status, 0, sealed.description)
        XCTAssertTrue(sealed.standardOutput.contains("sealed the existing"), sealed.description)
        XCTAssertEqual(try seal(["--check", "--output=\(output)"]).status, 0)
        XCTAssertEqual(try decrypt(output), pepper)

        try tpm.measureAFirmwareUpdate()
        let check = try seal(["--check", "--output=\(output)"])
        XCTAssertEqual(check.status, 0, "a firmware update locked the pepper away: \(check)")
        let opened = try decrypt(output)
        XCTAssertEqual(opened, pepper)

        // pinvaultd from the credential alone, as LoadCredentialEncrypted= hands it over.
        XCTAssertEqual(unlink(daemon.stateDirectory + "/pepper"), 0)
        let credentials = try TemporaryDirectory()
        try Data(opened).write(to: URL(fileURLWithPath: credentials.path + "/pinvault.pepper"))
        try daemon.start(environment: ["CREDENTIALS_DIRECTORY": credentials.path])
        XCTAssertTrue(daemon.log.contains("source=credentials"), daemon.log)
        let signed = try daemon.connect().authenticate(user: "alice", pin: pin)
        XCTAssertNil(signed.error, "the credential sealed before does not open from the TPM2's pepper: \(signed)")
        XCTAssertNotNil(signed["signature"] as? String, signed.description)
        XCTAssertEqual(try daemon.stop(), 0, daemon.log)
    }

    /// A second run keeps the seal byte for byte; the TPM2 alone (`--with-key=tpm2`) opens too.
    func testASecondRun_keepsTheSeal_andATPM2OnlySealOpens() throws {
        let output = script.scratch.path + "/pinvault.pepper"
        let state = script.scratch.path + "/no-state"
        XCTAssertEqual(try seal(["--with-key=tpm2", "--state-directory=\(state)", "--output=\(output)"]).status, 0)
        let first = try Data(contentsOf: URL(fileURLWithPath: output))
        XCTAssertEqual(try decrypt(output).count, 32)
        let again = try seal(["--with-key=tpm2", "--state-directory=\(state)", "--output=\(output)"])
        XCTAssertEqual(again.status, 0, again.description)
        XCTAssertTrue(again.standardOutput.contains("opens here; nothing to do"), again.description)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: output)), first)
    }

    /// The TPM2 cleared (a board replaced): the check names the recovery step, and the
    /// recovery key made at sealing brings the same pepper back on the new TPM2.
    func testARecoveryKey_bringsThePepperBack_afterTheTPMIsCleared() throws {
        let daemon = try SealPepperScript.vaultWithACredential()
        let pepper = try SealPepperScript.pepper(of: daemon)
        let output = script.scratch.path + "/credstore/pinvault.pepper"
        let keyFile = script.scratch.path + "/recovery-key"
        let sealed = try seal(["--with-key=tpm2", "--state-directory=\(daemon.stateDirectory)", "--output=\(output)",
                               "--recovery-key-file=\(keyFile)"])
        XCTAssertEqual(sealed.status, 0, sealed.description)
        XCTAssertEqual(SealPepperScript.mode(of: keyFile), 0o400)

        try tpm.replace()
        let check = try seal(["--check", "--output=\(output)"])
        XCTAssertEqual(check.status, 1, check.description)
        XCTAssertTrue(check.standardError.contains("pinvault-seal-pepper --recover="), check.description)
        // Nothing depends on the script's heal here: the vault holds a credential and its
        // pepper is gone, so a plain run leaves the unopenable seal alone.
        XCTAssertEqual(unlink(daemon.stateDirectory + "/pepper"), 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: output))
        let refused = try seal(["--with-key=tpm2", "--state-directory=\(daemon.stateDirectory)", "--output=\(output)"])
        XCTAssertEqual(refused.status, 1, refused.description)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: output)), before, "a seal the vault may need was replaced")

        let recovered = try seal(["--recover=\(keyFile)", "--with-key=tpm2", "--state-directory=\(daemon.stateDirectory)",
                                  "--output=\(output)"])
        XCTAssertEqual(recovered.status, 0, recovered.description)
        XCTAssertEqual(try seal(["--check", "--output=\(output)"]).status, 0)
        XCTAssertEqual(try decrypt(output), pepper)
    }

    /// A seal that no longer opens (an earlier release's on systemd 252, or a cleared TPM2)
    /// is mended on the next run — the postinst's, on upgrade — where nothing can be lost:
    /// from DIR/pepper when the vault's pepper is at hand, with a new pepper when the
    /// vault holds no credential.
    func testAnUnopenableSeal_isReplaced_onlyWhereNoCredentialCanBeLost() throws {
        let daemon = try SealPepperScript.vaultWithACredential()
        let pepper = try SealPepperScript.pepper(of: daemon)
        let output = script.scratch.path + "/credstore/pinvault.pepper"
        XCTAssertEqual(try seal(["--with-key=tpm2", "--state-directory=\(daemon.stateDirectory)", "--output=\(output)"]).status, 0)
        try tpm.replace()

        let mended = try seal(["--with-key=auto", "--state-directory=\(daemon.stateDirectory)", "--output=\(output)"])
        XCTAssertEqual(mended.status, 0, mended.description)
        XCTAssertTrue(mended.standardOutput.contains("which did not open here"), mended.description)
        XCTAssertEqual(try decrypt(output), pepper, "the vault's own pepper was not the one sealed")

        let empty = script.scratch.path + "/empty-state"
        let fresh = script.scratch.path + "/fresh.pepper"
        XCTAssertEqual(try seal(["--with-key=tpm2", "--state-directory=\(empty)", "--output=\(fresh)"]).status, 0)
        try tpm.replace()
        let renewed = try seal(["--with-key=auto", "--state-directory=\(empty)", "--output=\(fresh)"])
        XCTAssertEqual(renewed.status, 0, renewed.description)
        XCTAssertTrue(renewed.standardOutput.contains("with a new pepper"), renewed.description)
        XCTAssertEqual(try decrypt(fresh).count, 32)
    }
}
