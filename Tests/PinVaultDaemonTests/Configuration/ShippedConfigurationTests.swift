@testable import PinVaultDaemon
import PinVaultCore
import XCTest

/// `config/pinvaultd.toml` lists every key at its default.
final class ShippedConfigurationTests: XCTestCase {
    private let configDirectory: String = {
        var path = #filePath
        for _ in 0..<4 {
            path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        }
        return path + "/config"
    }()

    func testShippedFile_givesTheDefaults_withTheShippedDenyList() throws {
        let loaded = try DaemonConfiguration.load(path: configDirectory + "/pinvaultd.toml")
        var expected = DaemonConfiguration.defaults
        expected.policy.denyList = try DenyList(contentsOfFile: configDirectory + "/deny-list.txt")
        XCTAssertEqual(expected.policy.denyList.count, 2670)
        XCTAssertEqual(loaded, expected)
    }

    func testShippedFile_withoutItsDenyListLine_isExactlyTheDefaults() throws {
        let path = configDirectory + "/pinvaultd.toml"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.filter { $0.hasPrefix("deny_list = ") }.count, 1)
        let withoutList = lines.filter { !$0.hasPrefix("deny_list = ") }.joined(separator: "\n")
        XCTAssertEqual(try DaemonConfiguration.parse(withoutList, file: path), .defaults)
    }

    func testShippedFile_namesEveryKey() throws {
        let text = try String(contentsOfFile: configDirectory + "/pinvaultd.toml", encoding: .utf8)
        let allKeys = DaemonConfiguration.rootKeys + DaemonConfiguration.Server.keys + DaemonConfiguration.Access.keys
            + DaemonConfiguration.Store.keys + DaemonConfiguration.KDF.keys + DaemonConfiguration.policyKeys
            + DaemonConfiguration.lockoutKeys + DaemonConfiguration.Unregister.keys
            + DaemonConfiguration.Credentials.keys + DaemonConfiguration.Sessions.keys
            + DaemonConfiguration.SSHAgent.keys + DaemonConfiguration.WebAuthn.keys
        for key in allKeys {
            XCTAssertTrue(text.contains("\(key) = "), "config/pinvaultd.toml does not mention \(key)")
        }
        for section in DaemonConfiguration.sectionNames {
            XCTAssertTrue(text.contains("[\(section)]\n"), "config/pinvaultd.toml has no [\(section)]")
        }
    }
}
