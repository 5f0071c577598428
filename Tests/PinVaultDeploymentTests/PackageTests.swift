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
                       "debian/changelog and Sources/PinVaultSystem/PinVaultVersion.swift disagree")
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

    /// docs/man/pinvaultd.8 is written by hand: it must name every option of
    /// `pinvaultd --help`.
    func testDaemonManualPage_namesEveryOption() throws {
        let help = try Subprocess.run(TestDaemon.binaryPath, ["--help"])
        XCTAssertEqual(help.status, 0, help.description)
        let options = Set(help.standardOutput.split(whereSeparator: { " \n[],".contains($0) })
            .filter { $0.hasPrefix("--") }.map(String.init))
        XCTAssertGreaterThanOrEqual(options.count, 7, help.standardOutput)
        let page = try String(contentsOfFile: Self.root + "/docs/man/pinvaultd.8", encoding: .utf8)
        for option in options {
            XCTAssertTrue(page.contains(option.replacingOccurrences(of: "-", with: "\\-")), "docs/man/pinvaultd.8 lacks \(option)")
        }
    }

    /// docs/man/pinvaultd.toml.5 is written by hand: it must describe every key of the
    /// shipped config/pinvaultd.toml in its section, and give the same default for each
    /// number and boolean.
    func testConfigurationManualPage_describesEveryKey_withTheShippedDefault() throws {
        let config = try String(contentsOfFile: Self.root + "/config/pinvaultd.toml", encoding: .utf8)
        let page = try String(contentsOfFile: Self.root + "/docs/man/pinvaultd.toml.5", encoding: .utf8)
        var section = "TOP LEVEL"
        var checked = 0
        for line in config.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("[") {
                section = line
                continue
            }
            guard !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            let where_ = "\(section) \(key)"
            // The key's paragraph: from its `.B key` line in its section to the next `.TP` or `.SH`.
            guard let sectionStart = page.range(of: "\n.SH \(section)\n") else {
                XCTFail("docs/man/pinvaultd.toml.5 has no section \(section)")
                continue
            }
            let rest = page[sectionStart.upperBound...]
            let sectionText = rest[..<(rest.range(of: "\n.SH ")?.lowerBound ?? rest.endIndex)]
            guard let keyStart = sectionText.range(of: "\n.B \(key)\n") else {
                XCTFail("docs/man/pinvaultd.toml.5 does not describe \(where_)")
                continue
            }
            let after = sectionText[keyStart.upperBound...]
            let paragraph = after[..<(after.range(of: "\n.TP")?.lowerBound ?? after.endIndex)]
            if Int(value.replacingOccurrences(of: "_", with: "")) != nil || value == "true" || value == "false" {
                XCTAssertTrue(paragraph.contains("Default: \(value.replacingOccurrences(of: "_", with: ""))."),
                              "docs/man/pinvaultd.toml.5 gives another default for \(where_) than \(value):\n\(paragraph)")
            }
            checked += 1
        }
        XCTAssertGreaterThan(checked, 30)
    }
}
