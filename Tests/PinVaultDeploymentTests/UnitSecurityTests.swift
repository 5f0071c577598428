import Foundation
import PinVaultTestKit
import XCTest

/// The installed units pass `systemd-analyze verify` and score an overall exposure
/// of at most 1.0 in `systemd-analyze security --offline=yes` (what `make check-units`
/// runs on the repository's units).
final class UnitSecurityTests: XCTestCase {
    static let maximumExposure = 1.0

    override class func tearDown() { Installation.removeShared() }

    private func systemdAnalyze() throws -> String {
        guard let path = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first(where: {
            FileManager.default.isExecutableFile(atPath: $0)
        }) else { throw XCTSkip("systemd-analyze is not installed (make deps installs systemd)") }
        return path
    }

    /// The number after "Overall exposure level for pinvaultd.service:".
    static func overallExposure(in output: String) -> Double? {
        let marker = "Overall exposure level for pinvaultd.service:"
        guard let line = output.split(separator: "\n").first(where: { $0.contains(marker) }),
              let range = line.range(of: marker) else { return nil }
        let number = line[range.upperBound...].drop(while: { $0 == " " }).prefix(while: { $0.isNumber || $0 == "." })
        return Double(number)
    }

    func testInstalledService_hasOverallExposureOfAtMostOne() throws {
        let analyze = try systemdAnalyze()
        let installation = try Installation.shared()
        let result = try Subprocess.run(analyze, ["security", "--offline=yes", "--threshold=10", installation.servicePath])
        XCTAssertEqual(result.status, 0, result.description)
        let exposure = try XCTUnwrap(Self.overallExposure(in: result.standardOutput + result.standardError), result.description)
        XCTAssertLessThanOrEqual(exposure, Self.maximumExposure, result.standardOutput)
    }

    func testExposureParser_readsTheOverallLevel() {
        let output = "✗ PrivateUsers= ...\n→ Overall exposure level for pinvaultd.service: 0.4 SAFE 😀\n"
        XCTAssertEqual(Self.overallExposure(in: output), 0.4)
        XCTAssertNil(Self.overallExposure(in: "→ Overall exposure level for other.service: 0.4 SAFE"))
    }

    func testInstalledUnits_passVerifyWithTheInstalledBinary() throws {
        _ = try systemdAnalyze()
        let installation = try Installation.shared()
        let result = try Subprocess.run(
            TestDaemon.repositoryRoot + "/scripts/check-units.sh",
            [installation.unitDirectory, installation.destination, installation.userUnitDirectory]
        )
        XCTAssertEqual(result.status, 0, result.description)
        XCTAssertTrue(result.standardOutput.contains("systemd-analyze verify: ok"), result.description)
        XCTAssertTrue(result.standardOutput.contains("systemd-analyze verify (user units): ok"), result.description)
        XCTAssertFalse(result.standardOutput.contains("stand-in"), "verified without the installed binary: \(result)")
    }

    func testCheckUnits_failsAboveTheExposureLimit() throws {
        _ = try systemdAnalyze()
        let result = try Subprocess.run(
            "/usr/bin/env",
            ["MAX_EXPOSURE=0.0", TestDaemon.repositoryRoot + "/scripts/check-units.sh", TestDaemon.repositoryRoot + "/systemd"]
        )
        XCTAssertEqual(result.status, 1, result.description)
        XCTAssertTrue(result.standardError.contains("is above 0.0"), result.description)
    }

    /// The per-user agent's units: installed for every user, enabled for none, pointing
    /// at the installed `pinvault`.
    func testInstalledUserUnits_runTheInstalledAgent() throws {
        let installation = try Installation.shared()
        let service = try String(contentsOfFile: installation.userUnitDirectory + "/pinvault-agent.service", encoding: .utf8)
        XCTAssertTrue(service.contains("\nExecStart=/usr/local/bin/pinvault agent\n"), service)
        let socket = try String(contentsOfFile: installation.userUnitDirectory + "/pinvault-agent.socket", encoding: .utf8)
        XCTAssertTrue(socket.contains("\nListenStream=%t/pinvault/agent.sock\n"), socket)
        XCTAssertTrue(socket.contains("\nSocketMode=0600\n"), socket)
        XCTAssertFalse(FileManager.default.fileExists(atPath: installation.destination + "/etc/systemd/user/sockets.target.wants"),
                       "make install enabled the agent for every user")
    }

    func testInstalledService_pointsAtTheInstalledBinaryAndConfiguration() throws {
        let installation = try Installation.shared()
        let unit = try String(contentsOfFile: installation.servicePath, encoding: .utf8)
        XCTAssertTrue(unit.contains("\nExecStart=/usr/local/bin/pinvaultd --config /etc/pinvault/pinvaultd.toml --exit-on-idle-seconds 300\n"), unit)
        XCTAssertFalse(unit.contains(installation.destination), "DESTDIR leaked into the unit")
        XCTAssertFalse(unit.contains("\nPrivateUsers="), "PrivateUsers= would hide every peer's uid")
        for setting in ["Type=notify", "WatchdogSec=", "StateDirectory=pinvault", "StateDirectoryMode=0700",
                        "LoadCredentialEncrypted=pinvault.pepper:", "User=pinvault", "LimitMEMLOCK="] {
            XCTAssertTrue(unit.contains("\n" + setting), "missing \(setting)")
        }
    }
}
