import Logging
import XCTest

@testable import PinVaultDaemon

/// pinvaultd's command line (`DaemonOptions.parse`): the six options in either form,
/// help and version, and a usage error for anything else.
final class DaemonArgumentsTests: XCTestCase {
    private func options(_ arguments: [String]) throws -> DaemonOptions {
        guard case .run(let options) = try DaemonOptions.parse(arguments) else {
            throw XCTSkip("not a run: \(arguments)")
        }
        return options
    }

    private func refusal(_ arguments: [String]) -> String? {
        do {
            _ = try DaemonOptions.parse(arguments)
            return nil
        } catch {
            return error.description
        }
    }

    func testEveryOption_inBothForms() throws {
        let spaced = try options([
            "--config", "/c.toml", "--socket", "/s", "--state-directory", "/d", "--log-level", "debug",
            "--exit-on-idle-seconds", "300", "--ssh-agent-socket", "",
        ])
        let joined = try options([
            "--config=/c.toml", "--socket=/s", "--state-directory=/d", "--log-level=debug", "--exit-on-idle-seconds=300",
            "--ssh-agent-socket=",
        ])
        for parsed in [spaced, joined] {
            XCTAssertEqual(parsed.configPath, "/c.toml")
            XCTAssertEqual(parsed.socketPath, "/s")
            XCTAssertEqual(parsed.stateDirectory, "/d")
            XCTAssertEqual(parsed.logLevel, .debug)
            XCTAssertEqual(parsed.exitOnIdleSeconds, 300)
            XCTAssertEqual(parsed.sshAgentSocketPath, "", "an empty path serves no agent socket")
        }
        let none = try options([])
        XCTAssertNil(none.configPath)
        XCTAssertNil(none.exitOnIdleSeconds)
    }

    func testHelpAndVersion() throws {
        guard case .help = try DaemonOptions.parse(["--socket", "/s", "--help"]) else { return XCTFail("not help") }
        guard case .help = try DaemonOptions.parse(["-h"]) else { return XCTFail("not help") }
        guard case .version = try DaemonOptions.parse(["--version"]) else { return XCTFail("not version") }
        for option in ["--config", "--socket", "--ssh-agent-socket", "--state-directory", "--log-level", "--exit-on-idle-seconds", "--version"] {
            XCTAssertTrue(DaemonOptions.help.contains(option), option)
        }
        XCTAssertTrue(DaemonOptions.help.contains("(default /etc/pinvault/pinvaultd.toml)"), DaemonOptions.help)
        XCTAssertFalse(DaemonOptions.help.contains("\\("), "an interpolation left as text")
    }

    func testMistakes_areUsageErrors_namingTheMistake() {
        XCTAssertEqual(refusal(["--sockett", "/s"]), "unknown option '--sockett'")
        XCTAssertEqual(refusal(["serve"]), "unexpected argument 'serve'")
        XCTAssertEqual(refusal(["--socket"]), "missing value for '--socket'")
        XCTAssertEqual(refusal(["--socket", "--config", "/c"]), "missing value for '--socket'")
        XCTAssertEqual(refusal(["--socket", "/a", "--socket=/b"]), "--socket given twice")
        XCTAssertEqual(refusal(["--log-level", "loud"]), "unknown log level 'loud'")
        XCTAssertEqual(refusal(["--exit-on-idle-seconds", "-1"]), "--exit-on-idle-seconds must be 0 to 86400, got '-1'")
        XCTAssertEqual(refusal(["--exit-on-idle-seconds=many"]), "--exit-on-idle-seconds must be 0 to 86400, got 'many'")
    }
}
