import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// `packaging/pinvault-seal-pepper` run as the shell script it is, with the real
/// `systemd-creds`, a scratch directory and a scratch host key (instead of
/// /var/lib/systemd/credential.secret): what SealPepperScriptTests and
/// SealPepperTPMTests share.
struct SealPepperScript {
    static let path = TestDaemon.repositoryRoot + "/packaging/pinvault-seal-pepper"

    let creds: String
    let scratch: TemporaryDirectory
    var environment: [String: String]

    /// nil when systemd-creds is not installed.
    init?() throws {
        guard let found = ["/usr/bin/systemd-creds", "/bin/systemd-creds"].first(where: {
            FileManager.default.isExecutableFile(atPath: $0)
        }) else { return nil }
        creds = found
        scratch = try TemporaryDirectory()
        environment = ProcessInfo.processInfo.environment
        environment["SYSTEMD_CREDENTIAL_SECRET"] = scratch.path + "/credential.secret"
    }

    func run(_ arguments: [String], environment: [String: String]? = nil) throws -> Subprocess.Result {
        try Subprocess.run("/bin/bash", [Self.path] + arguments, environment: environment ?? self.environment, timeout: 120)
    }

    /// The pepper sealed into `sealed`, decrypted by systemd-creds (through `device`).
    func decrypt(_ sealed: String, device: String? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> [UInt8] {
        let plain = scratch.path + "/decrypted-\(UUID().uuidString)"
        defer { unlink(plain) }
        let result = try Subprocess.run(
            creds, ["decrypt", "--name=pinvault.pepper"] + (device.map { ["--tpm2-device=\($0)"] } ?? []) + [sealed, plain],
            environment: environment)
        XCTAssertEqual(result.status, 0, result.description, file: file, line: line)
        return [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: plain))) ?? Data())
    }

    /// A real vault: pinvaultd made the state directory, its pepper and one credential.
    static func vaultWithACredential(pin: String = "258046") throws -> TestDaemon {
        let daemon = try TestDaemon()
        try daemon.start()
        try daemon.connect().register(user: "alice", pin: pin)
        XCTAssertEqual(try daemon.stop(), 0, daemon.log)
        return daemon
    }

    static func pepper(of daemon: TestDaemon) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: daemon.stateDirectory + "/pepper")))
    }

    static func mode(of path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
    }
}
