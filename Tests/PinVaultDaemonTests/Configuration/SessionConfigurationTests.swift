@testable import PinVaultDaemon
import PinVaultConfiguration
import XCTest

/// `[sessions]` and `[ssh_agent]` (config/pinvaultd.toml), and what reaches the engine.
final class SessionConfigurationTests: XCTestCase {
    private func parse(_ text: String) throws -> DaemonConfiguration {
        try DaemonConfiguration.parse(text, file: "/etc/pinvault/pinvaultd.toml")
    }

    private func assertRefused(_ text: String, naming key: String, line: UInt = #line) {
        XCTAssertThrowsError(try parse(text), line: line) { error in
            XCTAssertEqual((error as? ConfigurationError)?.key, key, "\(error)", line: line)
        }
    }

    func testDefaults_matchTheDesign() {
        let defaults = DaemonConfiguration.defaults
        XCTAssertEqual(defaults.sessions.maxTtlSeconds, 3600)
        XCTAssertEqual(defaults.sessions.maxPerUid, 16)
        XCTAssertEqual(defaults.sshAgent.socketPath, "/run/pinvault/ssh-agent.sock")
    }

    func testEveryKey_isRead_andReachesTheEngine() throws {
        let configuration = try parse("""
            [sessions]
            max_ttl_seconds = 600
            max_per_uid = 3
            [ssh_agent]
            socket_path = "/run/user/agent.sock"
            """)
        XCTAssertEqual(configuration.sessions.maxTtlSeconds, 600)
        XCTAssertEqual(configuration.sessions.maxPerUid, 3)
        XCTAssertEqual(configuration.sshAgent.socketPath, "/run/user/agent.sock")
        let settings = configuration.engineSettings(processors: 2)
        XCTAssertEqual(settings.sessionMaxTtlSeconds, 600)
        XCTAssertEqual(settings.sessionsPerUid, 3)
    }

    func testZeroMaxTtl_isAccepted_asUnlockTurnedOff() throws {
        XCTAssertEqual(try parse("[sessions]\nmax_ttl_seconds = 0").sessions.maxTtlSeconds, 0)
    }

    func testAnEmptyAgentSocketPath_servesNone() throws {
        XCTAssertEqual(try parse("[ssh_agent]\nsocket_path = \"\"").sshAgent.socketPath, "")
    }

    func testOutOfRangeAndMalformedValues_areRefusedNamingTheKey() {
        assertRefused("[sessions]\nmax_ttl_seconds = -1", naming: "sessions.max_ttl_seconds")
        assertRefused("[sessions]\nmax_ttl_seconds = 2592001", naming: "sessions.max_ttl_seconds")
        assertRefused("[sessions]\nmax_per_uid = 0", naming: "sessions.max_per_uid")
        assertRefused("[sessions]\nmax_per_uid = 1025", naming: "sessions.max_per_uid")
        assertRefused("[sessions]\nmax_ttl = 5", naming: "sessions.max_ttl")
        assertRefused("[ssh_agent]\nsocket_path = \"relative.sock\"", naming: "ssh_agent.socket_path")
        assertRefused("[ssh_agent]\nsocket_path = \"/\(String(repeating: "a", count: 107))\"", naming: "ssh_agent.socket_path")
        assertRefused("[ssh_agent]\nsocket_path = 5", naming: "ssh_agent.socket_path")
    }
}
