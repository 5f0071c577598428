import Foundation
import PinVaultTestKit
import XCTest

/// What the Debian package takes from the repository agrees with the binaries: one
/// version, and manual pages for every command. (`make package-test` proves the
/// package itself on a clean Debian 12.)
final class PackageTests: XCTestCase {
    private static let root = TestDaemon.repositoryRoot

    /// "0.1.0" from the top entry "pinvault (0.1.0-1) unstable; urgency=medium".
    static func upstreamVersion(ofChangelog text: String) -> String? {
        guard let line = text.split(separator: "\n").first,
              let open = line.firstIndex(of: "("), let close = line.firstIndex(of: ")"), open < close else { return nil }
        let version = line[line.index(after: open)..<close]
        guard let dash = version.lastIndex(of: "-") else { return String(version) }
        return String(version[..<dash])
    }

    func testChangelogParser_readsTheUpstreamPartOfTheTopEntry() {
        XCTAssertEqual(Self.upstreamVersion(ofChangelog: "pinvault (1.2.3-4) unstable; urgency=medium\n\n  * x\n"), "1.2.3")
        XCTAssertEqual(Self.upstreamVersion(ofChangelog: "pinvault (1.2.3-4+b1) unstable; urgency=low\n"), "1.2.3")
        XCTAssertEqual(Self.upstreamVersion(ofChangelog: "pinvault (2.0) unstable; urgency=low\n"), "2.0")
        XCTAssertNil(Self.upstreamVersion(ofChangelog: "not a changelog\n"))
    }

    /// debian/changelog and PinVaultVersion.current (what `pinvaultd --version` and
    /// GetInfo report) say the same version; debian/rules refuses to build otherwise.
    func testDebianChangelog_namesTheVersionTheDaemonReports() throws {
        let changelog = try String(contentsOfFile: Self.root + "/debian/changelog", encoding: .utf8)
        let packaged = try XCTUnwrap(Self.upstreamVersion(ofChangelog: changelog), changelog)
        let reported = try Subprocess.run(TestDaemon.binaryPath, ["--version"])
        XCTAssertEqual(reported.status, 0, reported.description)
        XCTAssertEqual(reported.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines), packaged,
                       "debian/changelog and Sources/PinVaultDaemon/DaemonOptions.swift disagree")
    }

    /// Every program the package installs has its page, and the configuration file too.
    func testManualPages_coverEveryInstalledProgramAndTheConfiguration() {
        for page in ["pinvaultd.8", "pinvault.1", "pinvaultd.toml.5", "pinvault-seal-pepper.8"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: Self.root + "/docs/man/" + page), page)
        }
    }

    /// docs/man/pinvault.1 is generated (`make man`) and committed: it must still name
    /// every subcommand the command line has, however deep.
    func testPinvaultManualPage_namesEverySubcommand() throws {
        let cli = URL(fileURLWithPath: TestDaemon.binaryPath).deletingLastPathComponent().appendingPathComponent("pinvault").path
        let dump = try Subprocess.run(cli, ["--experimental-dump-help"])
        XCTAssertEqual(dump.status, 0, dump.description)
        let info = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(dump.standardOutput.utf8)) as? [String: Any])
        var names: [String] = []
        func collect(_ command: [String: Any]) {
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                if let name = sub["commandName"] as? String { names.append(name) }
                collect(sub)
            }
        }
        collect(try XCTUnwrap(info["command"] as? [String: Any]))
        XCTAssertGreaterThan(names.count, 10, dump.standardOutput)
        let page = try String(contentsOfFile: Self.root + "/docs/man/pinvault.1", encoding: .utf8)
        for name in names {
            XCTAssertTrue(page.contains("\n.It Em \(name)\n"), "docs/man/pinvault.1 lacks \(name): run make man")
        }
    }
}
