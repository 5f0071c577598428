import Foundation
import PinVaultTestKit
import XCTest

/// The repository's documentation stands on its own: no file cites a document outside
/// it, docs/ARCHITECTURE.md maps every module, pinvault(1) has the sections the
/// command line points to, and the README names every Debian package make installs.
final class RepositoryDocsTests: XCTestCase {
    private static let root = TestDaemon.repositoryRoot

    /// Every file of the checkout but build output, caches and version control.
    private static func repositoryFiles() -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        var files: [String] = []
        while let path = walker.nextObject() as? String {
            let top = path.split(separator: "/").first.map(String.init) ?? path
            if top.hasPrefix(".build") || [".git", ".venv", ".swiftpm", "run", "dist", "debian/tmp"].contains(top)
                || path.hasPrefix("debian/pinvault") || path.hasPrefix("debian/libpinvault") || path.hasPrefix("debian/tmp")
                || path.hasPrefix("debian/.debhelper") {
                walker.skipDescendants()
                continue
            }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files.append(path)
            }
        }
        return files
    }

    /// The design notes the project was written from live outside the repository: its
    /// docs, sources and tests explain themselves and cite none of them.
    func testNoFile_citesADocumentOutsideTheRepository() throws {
        // Spelled in pieces, so that this file does not cite them either.
        let outside = ["DESIGN" + ".md", "../" + "shared"]
        var citing: [String] = []
        let files = Self.repositoryFiles()
        XCTAssertGreaterThan(files.count, 100, "the walk found the repository")
        for path in files {
            guard let data = FileManager.default.contents(atPath: Self.root + "/" + path),
                  let text = String(data: data, encoding: .utf8) else { continue }
            for name in outside where text.range(of: name, options: .caseInsensitive) != nil {
                citing.append("\(path) cites \(name)")
            }
        }
        XCTAssertEqual(citing, [])
    }

    /// No private key is kept in the repository: tests make their keys in temporary
    /// directories, and a key a hand-run experiment leaves in the checkout is caught here
    /// before it can be committed.
    func testNoFile_holdsAPrivateKey() throws {
        let armour = "PRIVATE" + " KEY-----"  // in pieces, so that this file holds none
        var holding: [String] = []
        for path in Self.repositoryFiles() {
            guard let data = FileManager.default.contents(atPath: Self.root + "/" + path) else { continue }
            if data.range(of: Data(armour.utf8)) != nil { holding.append(path) }
        }
        XCTAssertEqual(holding, [])
    }

    /// One module map, in docs/ARCHITECTURE.md: it names every module under Sources/.
    func testTheArchitectureDocument_mapsEveryModule() throws {
        let architecture = try String(contentsOfFile: Self.root + "/docs/ARCHITECTURE.md", encoding: .utf8)
        let modules = try FileManager.default.contentsOfDirectory(atPath: Self.root + "/Sources")
        XCTAssertGreaterThan(modules.count, 10)
        for module in modules {
            XCTAssertTrue(architecture.contains(module), "docs/ARCHITECTURE.md does not name \(module)")
        }
        let package = try String(contentsOfFile: Self.root + "/Package.swift", encoding: .utf8)
        let readme = try String(contentsOfFile: Self.root + "/README.md", encoding: .utf8)
        for (name, text) in [("Package.swift", package), ("README.md", readme)] {
            XCTAssertTrue(text.contains("docs/ARCHITECTURE.md"), "\(name) points to the map")
            XCTAssertFalse(text.contains("PinVaultSSHProtocol ") && text.contains("PinVaultCore ") && text.contains("PinVaultStore "),
                           "\(name) repeats the module map")
        }
    }

    /// pinvault(1) has the sections the command line sends readers to, and its EXIT
    /// STATUS lists every status `pinvault --help` does.
    func testThePinvaultManualPage_hasKeyPurposesAgentAndEveryExitStatus() throws {
        let page = try String(contentsOfFile: Self.root + "/docs/man/pinvault.1", encoding: .utf8)
        for section in [".Sh KEY PURPOSES", ".Sh AGENT", ".Sh \"EXIT STATUS\""] {
            XCTAssertTrue(page.contains("\n" + section + "\n"), "pinvault.1 has no \(section)")
        }
        let help = try Subprocess.run(
            URL(fileURLWithPath: TestDaemon.binaryPath).deletingLastPathComponent().appendingPathComponent("pinvault").path, ["--help"]
        )
        let statuses = help.standardOutput.split(separator: "\n")
            .compactMap { line -> String? in
                let fields = line.split(separator: " ", maxSplits: 1)
                guard fields.count == 2, line.hasPrefix(" "), Int(fields[0]) != nil else { return nil }
                return String(fields[0])
            }
        XCTAssertEqual(statuses.count, 16, help.standardOutput)
        let table = String(try XCTUnwrap(page.range(of: ".Sh \"EXIT STATUS\"")).map { page[$0.upperBound...] } ?? "")
        for status in statuses {
            XCTAssertTrue(table.contains("\n.It \(status)\n"), "pinvault.1's EXIT STATUS has no \(status)")
        }
    }

    /// The README's lists of what `make` installs name every package the Makefile does.
    func testTheReadme_namesEveryPackageTheMakefileInstalls() throws {
        let makefile = try String(contentsOfFile: Self.root + "/Makefile", encoding: .utf8)
        let readme = try String(contentsOfFile: Self.root + "/README.md", encoding: .utf8)
        var packages: [String] = []
        for line in makefile.split(separator: "\n") {
            guard let name = line.split(separator: " ").first,
                  ["BUILD_PACKAGES", "TEST_PACKAGES", "DEB_PACKAGES", "SSH_TEST_PACKAGES"].contains(String(name)),
                  let assignment = line.range(of: "=") else { continue }
            packages += line[assignment.upperBound...].split(separator: " ").map(String.init)
        }
        XCTAssertGreaterThan(packages.count, 20, "the walk found the Makefile's package lists")
        for package in packages {
            XCTAssertTrue(readme.contains("`\(package)`"), "README.md does not name \(package)")
        }
    }
}
