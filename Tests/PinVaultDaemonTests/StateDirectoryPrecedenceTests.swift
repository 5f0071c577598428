import Foundation
import XCTest

@testable import PinVaultDaemon

/// pinvaultd --help: a flag beats the file, the file beats the default, and the default is
/// `$STATE_DIRECTORY`, else `/var/lib/pinvault`.
final class StateDirectoryPrecedenceTests: XCTestCase {
    private var configPath = ""

    override func setUpWithError() throws {
        configPath = NSTemporaryDirectory() + "pinvault-precedence-\(getpid()).toml"
    }

    override func tearDown() {
        unsetenv("STATE_DIRECTORY")
        try? FileManager.default.removeItem(atPath: configPath)
    }

    private func resolved(file: String, flag: String?, environment: String?) throws -> String? {
        try file.write(toFile: configPath, atomically: true, encoding: .utf8)
        if let environment { setenv("STATE_DIRECTORY", environment, 1) } else { unsetenv("STATE_DIRECTORY") }
        let options = DaemonOptions(configPath: configPath, stateDirectory: flag)
        return try Daemon.loadConfiguration(options).store.stateDirectory
    }

    func testFlag_beatsFileAndEnvironment() throws {
        XCTAssertEqual(try resolved(file: "[store]\nstate_directory = \"/file\"\n", flag: "/flag", environment: "/env"), "/flag")
    }

    func testFile_beatsEnvironment() throws {
        XCTAssertEqual(try resolved(file: "[store]\nstate_directory = \"/file\"\n", flag: nil, environment: "/env"), "/file")
    }

    func testEnvironment_isTheDefault_firstEntryWhenSeveral() throws {
        XCTAssertEqual(try resolved(file: "", flag: nil, environment: "/env/one:/env/two"), "/env/one")
    }

    func testWithoutAnything_theFallbackIsVarLibPinvault() throws {
        XCTAssertEqual(try resolved(file: "", flag: nil, environment: nil), "/var/lib/pinvault")
    }
}
