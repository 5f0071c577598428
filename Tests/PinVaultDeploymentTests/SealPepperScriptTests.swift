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
    /// The uid the unit's `User=pinvault` runs as, in these tests (as in the unit sandbox's).
    private static let pinvaultUid: UInt32 = 64000
    private var script: SealPepperScript!
    private var scratch: String { script.scratch.path }
    private var environment: [String: String] { script.environment }

    override func setUpWithError() throws {
        guard let made = try SealPepperScript() else {
            print("SealPepperScriptTests: SKIPPED — systemd-creds is not installed, so pinvault-seal-pepper was NOT tested")
            throw XCTSkip("systemd-creds is not installed: pinvault-seal-pepper is not tested")
        }
        script = made
    }

    override func tearDownWithError() throws {
        script = nil
    }

    private func seal(state: String, output: String) throws -> Subprocess.Result {
        try run(["--with-key=host", "--state-directory=\(state)", "--output=\(output)"])
    }

    private func decrypt(_ sealed: String) throws -> [UInt8] {
        try script.decrypt(sealed)
    }

    private func mode(of path: String) -> mode_t {
        SealPepperScript.mode(of: path)
    }

    private func vaultWithACredential() throws -> TestDaemon {
        try SealPepperScript.vaultWithACredential()
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
        XCTAssertTrue(again.standardOutput.contains("opens here; nothing to do"), again.description)
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

    // MARK: Pepper custody: no PCR an update changes, a recovery key, a seal that opens

    /// A `systemd-creds` first in PATH that records each call's arguments, one per line
    /// after a `--call--` line, and runs the real one; `swap` runs before an `encrypt` first —
    /// after its input arrived, when that is stdin (then whatever fed it has read its file);
    /// `decrypt`, when given, runs instead of every real `decrypt`.
    private func standIn(swap: String = "", decrypt: String = "") throws -> (environment: [String: String], record: String) {
        let bin = scratch + "/bin"
        XCTAssertEqual(mkdir(bin, 0o755), 0)
        let record = scratch + "/systemd-creds.calls"
        let body = """
            #!/bin/bash
            { echo --call--; printf '%s\\n' "$@"; } >>\(TestDaemon.tomlString(record))
            if [ "$1" = encrypt ]; then
                for argument; do [ "$argument" = - ] && /usr/bin/python3 -c 'import select, sys; select.select([sys.stdin], [], [])'; done
                \(swap.isEmpty ? ":" : swap)
            elif [ "$1" = decrypt ]; then
                \(decrypt.isEmpty ? ":" : decrypt)
            fi
            exec \(script.creds) "$@"
            """
        try body.write(toFile: bin + "/systemd-creds", atomically: true, encoding: .utf8)
        XCTAssertEqual(chmod(bin + "/systemd-creds", 0o755), 0)
        var environment = self.environment
        environment["PATH"] = bin + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        return (environment, record)
    }

    /// The arguments of each `systemd-creds` call the stand-in saw.
    private func calls(_ record: String) throws -> [[String]] {
        try String(contentsOfFile: record, encoding: .utf8).components(separatedBy: "--call--\n").dropFirst()
            .map { $0.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
    }

    private func run(_ arguments: [String], environment: [String: String]? = nil) throws -> Subprocess.Result {
        try script.run(arguments, environment: environment)
    }

    /// bookworm's systemd-creds (252) and trixie's (257) bind PCR 7 unless told: a dbx
    /// update, Secure Boot toggled or a shim rotation would lose every credential. The
    /// seal names no PCRs, and binding some needs a recovery key.
    func testTheSeal_bindsNoPCRs_andBindingSomeNeedsARecoveryKeyFile() throws {
        let (environment, record) = try standIn()
        let output = scratch + "/credstore/pinvault.pepper"
        let result = try run(["--with-key=auto", "--state-directory=\(scratch)/no-state", "--output=\(output)"], environment: environment)
        XCTAssertEqual(result.status, 0, result.description)
        let encrypt = try XCTUnwrap(try calls(record).first { $0.first == "encrypt" }, "no encrypt call")
        XCTAssertTrue(encrypt.contains("--tpm2-pcrs="), "PCRs left to systemd-creds' default: \(encrypt)")
        XCTAssertTrue(encrypt.contains("--with-key=auto"), "\(encrypt)")
        XCTAssertTrue(encrypt.contains("-"), "the pepper comes on stdin, never by a path: \(encrypt)")
        XCTAssertTrue(result.standardOutput.contains("--recovery-key-file="), "the seal says how to make a recovery key: \(result)")

        let decrypts = try calls(record).filter { $0.first == "decrypt" }
        XCTAssertTrue(decrypts.contains { $0.contains(output + ".new") }, "the seal was committed unopened: \(decrypts)")

        let bound = try run(["--with-key=tpm2", "--tpm2-pcrs=7", "--state-directory=\(scratch)/no-state", "--output=\(scratch)/other.pepper"])
        XCTAssertEqual(bound.status, 64, bound.description)
        XCTAssertTrue(bound.standardError.contains("--recovery-key-file"), bound.description)
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch + "/other.pepper"))
    }

    /// A seal that does not open here is never written: systemd 252 sealed a TPM2
    /// credential without PCRs that its own decrypt refused, and the package committed it.
    /// With every decrypt failing, both PCR sets are tried, nothing is written, and the
    /// reason is told.
    func testASealThatDoesNotOpen_isNeverCommitted_andTheReasonIsTold() throws {
        let (environment, record) = try standIn(decrypt: "echo 'TPM2 PCR bank invalid or not supported' >&2; exit 1")
        let output = scratch + "/credstore/pinvault.pepper"
        let result = try run(["--with-key=auto", "--state-directory=\(scratch)/no-state", "--output=\(output)"], environment: environment)
        XCTAssertEqual(result.status, 1, result.description)
        XCTAssertTrue(result.standardError.contains("no seal made here opens here"), result.description)
        XCTAssertTrue(result.standardError.contains("PCRs none: TPM2 PCR bank invalid or not supported"), result.description)
        XCTAssertTrue(result.standardError.contains("PCRs 23: TPM2 PCR bank invalid"), result.description)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output), "a seal that does not open was committed")
        XCTAssertFalse(FileManager.default.fileExists(atPath: output + ".new"))
        let pcrs = try calls(record).filter { $0.first == "encrypt" }.map { $0.first { $0.hasPrefix("--tpm2-pcrs=") } ?? "?" }
        XCTAssertEqual(pcrs, ["--tpm2-pcrs=", "--tpm2-pcrs=23"])
    }

    /// An admin's own PCRs are sealed as given, or not at all: no other set is tried.
    func testChosenPCRs_thatDoNotOpen_areNotReplacedByOthers() throws {
        let (environment, record) = try standIn(decrypt: "exit 1")
        let output = scratch + "/pinvault.pepper"
        let result = try run(["--tpm2-pcrs=7", "--recovery-key-file=\(scratch)/key", "--state-directory=\(scratch)/no-state",
                              "--output=\(output)"], environment: environment)
        XCTAssertEqual(result.status, 1, result.description)
        let pcrs = try calls(record).filter { $0.first == "encrypt" }.map { $0.first { $0.hasPrefix("--tpm2-pcrs=") } ?? "?" }
        XCTAssertEqual(pcrs, ["--tpm2-pcrs=7"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch + "/key"), "a recovery key of a seal never made")
    }

    /// The recovery key is the pepper in the clear: it goes only into a new regular file.
    /// `set -C` refused only an existing regular file, so a FIFO there (or a link to one,
    /// or a dangling link) took the key; now each is refused, and nothing is written.
    func testARecoveryKeyFile_thatIsAFifoOrALink_isNeverWritten() throws {
        let output = scratch + "/pinvault.pepper"
        XCTAssertEqual(try run(["--with-key=host", "--state-directory=\(scratch)/no-state", "--output=\(output)"]).status, 0)
        let fifo = scratch + "/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o666), 0)
        // A reader waits on it, as an attacker's would: the old script's write went through.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        XCTAssertGreaterThanOrEqual(reader, 0)
        defer { close(reader) }
        let linkToFifo = scratch + "/link-to-fifo"
        XCTAssertEqual(symlink(fifo, linkToFifo), 0)
        let target = scratch + "/elsewhere"
        let dangling = scratch + "/dangling"
        XCTAssertEqual(symlink(target, dangling), 0)
        for name in [fifo, linkToFifo, dangling] {
            let result = try run(["--output=\(output)", "--recovery-key-file=\(name)"])
            XCTAssertEqual(result.status, 73, "\(name): \(result)")
            XCTAssertTrue(result.standardError.contains("only ever written into a new regular file"), result.description)
        }
        var byte: UInt8 = 0
        XCTAssertLessThanOrEqual(read(reader, &byte, 1), 0, "the recovery key was written into the FIFO")
        XCTAssertFalse(FileManager.default.fileExists(atPath: target), "the recovery key was written through a dangling link")
    }

    /// The recovery path, with the host key standing in for the TPM2: the key goes into a
    /// new 0400 file (never to the terminal); with the host key lost the check names the
    /// recovery step; --recover seals the same pepper again, once the vault confirms it.
    func testARecoveryKey_bringsThePepperBack_afterTheHostKeyIsLost() throws {
        let daemon = try vaultWithACredential()
        let pepper = [UInt8](try Data(contentsOf: URL(fileURLWithPath: daemon.stateDirectory + "/pepper")))
        let hex = pepper.map { String(format: "%02x", $0) }.joined()
        let output = scratch + "/credstore/pinvault.pepper"
        let keyFile = scratch + "/recovery-key"
        let sealed = try run(["--with-key=host", "--state-directory=\(daemon.stateDirectory)", "--output=\(output)", "--recovery-key-file=\(keyFile)"])
        XCTAssertEqual(sealed.status, 0, sealed.description)
        XCTAssertFalse((sealed.standardOutput + sealed.standardError).contains(String(hex.prefix(8))), "the key reached the output")
        XCTAssertEqual(mode(of: keyFile), 0o400)
        let written = try String(contentsOfFile: keyFile, encoding: .utf8)
        XCTAssertTrue(written.replacingOccurrences(of: "-", with: "").contains(hex), written)
        XCTAssertEqual(try decrypt(output), pepper)
        XCTAssertEqual(try run(["--output=\(output)", "--recovery-key-file=\(keyFile)"]).status, 73, "a key file is never overwritten")

        // The host key goes (as a cleared TPM2 would): the pepper no longer opens.
        XCTAssertEqual(unlink(scratch + "/credential.secret"), 0)
        let check = try run(["--check", "--output=\(output)"])
        XCTAssertEqual(check.status, 1, check.description)
        XCTAssertTrue(check.standardError.contains("does not open on this machine"), check.description)
        XCTAssertTrue(check.standardError.contains("pinvault-seal-pepper --recover="), "the message names the recovery step: \(check)")

        var wrong = written
        let eighth = hex[hex.index(hex.startIndex, offsetBy: 7)]
        wrong.replace(String(hex.prefix(8)), with: String(hex.prefix(7)) + (eighth == "0" ? "1" : "0"))
        try wrong.write(toFile: scratch + "/wrong-key", atomically: true, encoding: .utf8)
        let refused = try run(["--recover=\(scratch)/wrong-key", "--with-key=host", "--state-directory=\(daemon.stateDirectory)", "--output=\(output)"])
        XCTAssertEqual(refused.status, 65, "another pepper was sealed over the vault: \(refused)")

        let recovered = try run(["--recover=\(keyFile)", "--with-key=host", "--state-directory=\(daemon.stateDirectory)", "--output=\(output)"])
        XCTAssertEqual(recovered.status, 0, recovered.description)
        XCTAssertEqual(try run(["--check", "--output=\(output)"]).status, 0)
        XCTAssertEqual(try decrypt(output), pepper)
    }

    // MARK: The state directory is the pinvault user's

    /// What the daemon's uid owns, as the unit's `User=pinvault` would: the state
    /// directory and everything in it, and a root-only secret beside it.
    private func pinvaultOwnedState(_ daemon: TestDaemon) throws -> (state: String, secret: [UInt8], secretPath: String) {
        XCTAssertEqual(chmod(scratch, 0o711), 0)
        let state = daemon.stateDirectory
        for name in ["", "/pepper", "/vault.sqlite"] where FileManager.default.fileExists(atPath: state + name) {
            XCTAssertEqual(chown(state + name, Self.pinvaultUid, Self.pinvaultUid), 0)
        }
        let secretDirectory = scratch + "/root-only"
        XCTAssertEqual(mkdir(secretDirectory, 0o700), 0)
        let secret = (0..<32).map { UInt8($0 ^ 0xa5) }
        let secretPath = secretDirectory + "/shadow-like"
        try Data(secret).write(to: URL(fileURLWithPath: secretPath))
        XCTAssertEqual(chmod(secretPath, 0o600), 0)
        return (state, secret, secretPath)
    }

    /// The review's attack: the pinvault uid swaps DIR/pepper for a link to a root-only
    /// file at the moment root's systemd-creds opens it. Played with a stand-in that
    /// swaps just before the real systemd-creds runs: the seal holds the pepper read
    /// before, never the file the link names.
    func testAPepperSwappedForALink_asSystemdCredsRuns_isNeverFollowed() throws {
        let daemon = try vaultWithACredential()
        let pepper = [UInt8](try Data(contentsOf: URL(fileURLWithPath: daemon.stateDirectory + "/pepper")))
        let (state, secret, secretPath) = try pinvaultOwnedState(daemon)
        let swap = "rm -f \(TestDaemon.tomlString(state + "/pepper")) && ln -s \(TestDaemon.tomlString(secretPath)) \(TestDaemon.tomlString(state + "/pepper"))"
        let (environment, _) = try standIn(swap: swap)
        let output = scratch + "/credstore/pinvault.pepper"
        let result = try run(["--with-key=host", "--state-directory=\(state)", "--output=\(output)"], environment: environment)
        XCTAssertEqual(result.status, 0, result.description)
        let sealed = try decrypt(output)
        XCTAssertNotEqual(sealed, secret, "root sealed the root-only file the link named")
        XCTAssertEqual(sealed, pepper)
    }

    /// A link planted beforehand is refused, by name, and nothing is sealed.
    func testAPepperThatIsALink_isRefused() throws {
        let daemon = try vaultWithACredential()
        let (state, _, secretPath) = try pinvaultOwnedState(daemon)
        XCTAssertEqual(unlink(state + "/pepper"), 0)
        XCTAssertEqual(symlink(secretPath, state + "/pepper"), 0)
        XCTAssertEqual(lchown(state + "/pepper", Self.pinvaultUid, Self.pinvaultUid), 0)
        let output = scratch + "/credstore/pinvault.pepper"
        let result = try run(["--with-key=host", "--state-directory=\(state)", "--output=\(output)"])
        XCTAssertEqual(result.status, 65, result.description)
        XCTAssertTrue(result.standardError.contains("is a symbolic link"), result.description)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
    }

    /// A FIFO at vault.sqlite used to hang the script (SQLite's open waits for a writer),
    /// and with it apt. It is refused at once.
    func testAFifoAtVaultSqlite_isRefused_withoutHanging() throws {
        let daemon = try vaultWithACredential()
        let (state, _, _) = try pinvaultOwnedState(daemon)
        let fifo = state + "/vault.sqlite"
        XCTAssertEqual(unlink(fifo), 0)
        XCTAssertEqual(unlink(state + "/pepper"), 0)
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        XCTAssertEqual(chown(fifo, Self.pinvaultUid, Self.pinvaultUid), 0)
        // A script that waits on the FIFO (the old one's SQLite did, past any kill of its
        // shell) is let go after 90 s, so that a failing run ends too.
        let release: @Sendable () -> Void = {
            let writer = open(fifo, O_WRONLY | O_NONBLOCK)
            if writer >= 0 { close(writer) }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + 90, execute: release)
        defer { release() }
        let output = scratch + "/credstore/pinvault.pepper"
        let result = try run(["--with-key=host", "--state-directory=\(state)", "--output=\(output)"])
        XCTAssertEqual(result.status, 65, result.description)
        XCTAssertTrue(result.standardError.contains("vault.sqlite is a fifo, not a regular file"), result.description)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
    }

    /// A FIFO at DIR/pepper: read once, without waiting for a writer, it is no pepper.
    func testAFifoAtPepper_isRefused_withoutHanging() throws {
        let daemon = try vaultWithACredential()
        let (state, _, _) = try pinvaultOwnedState(daemon)
        let fifo = state + "/pepper"
        XCTAssertEqual(unlink(fifo), 0)
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        XCTAssertEqual(chown(fifo, Self.pinvaultUid, Self.pinvaultUid), 0)
        let output = scratch + "/credstore/pinvault.pepper"
        let result = try run(["--with-key=host", "--state-directory=\(state)", "--output=\(output)"])
        XCTAssertEqual(result.status, 65, result.description)
        XCTAssertTrue(result.standardError.contains("pepper is a fifo"), result.description)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
    }
}
