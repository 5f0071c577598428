import Foundation
import PinVaultTestKit
import XCTest

/// `make run`, the README's first command: a local daemon whose sockets and state all
/// stay under `./run`, so that it never takes an installed daemon's place in /run/pinvault.
final class MakeRunTests: XCTestCase {
    func testMakeRun_servesBothSocketsAndKeepsItsStateUnderRun() throws {
        let daemon = try TestDaemon()
        let run = daemon.root + "/run dir"
        // The recipe as make would run it (-n: printed, not run; nothing is built).
        let recipe = try Installation.make(["-n", "run", "RUN_DIR=\(run)"])
        XCTAssertEqual(recipe.status, 0, recipe.description)
        func flag(_ name: String) -> String? {
            let pattern = try? NSRegularExpression(pattern: NSRegularExpression.escapedPattern(for: name) + #" "([^"]*)""#)
            let text = recipe.standardOutput
            guard let match = pattern?.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                  let range = Range(match.range(at: 1), in: text) else { return nil }
            return String(text[range])
        }
        let varlink = try XCTUnwrap(flag("--socket"), recipe.standardOutput)
        let agent = try XCTUnwrap(flag("--ssh-agent-socket"), "make run names no ssh-agent socket: \(recipe.standardOutput)")
        let state = try XCTUnwrap(flag("--state-directory"), recipe.standardOutput)
        XCTAssertEqual([varlink, agent, state], [run + "/io.pinvault.Vault", run + "/ssh-agent.sock", run + "/state"])
        XCTAssertFalse(recipe.standardOutput.contains("/run/pinvault"), recipe.standardOutput)
        // One build, in the release flags' own folder, and the daemon from it.
        let builds = recipe.standardOutput.split(separator: "\n").filter { $0.contains("swift build") }
        XCTAssertEqual(builds.count, 1, "make run builds once: \(recipe.standardOutput)")
        XCTAssertTrue(builds.allSatisfy { $0.contains("--static-swift-stdlib") && $0.contains("/.build-release\"") },
                      recipe.standardOutput)
        XCTAssertTrue(recipe.standardOutput.contains("/.build-release/release/pinvaultd\""), recipe.standardOutput)

        // Those flags, given to this build's pinvaultd, serve both sockets there.
        XCTAssertEqual(mkdir(run, 0o700), 0)
        try daemon.start(arguments: ["--config", daemon.configPath, "--socket", varlink, "--ssh-agent-socket", agent,
                                     "--state-directory", state], waitForSocket: false)
        var client: VarlinkClient?
        let deadline = Date().addingTimeInterval(60)
        while client == nil, Date() < deadline, daemon.process?.isRunning == true {
            client = try? VarlinkClient(socketPath: varlink)
            if client == nil { usleep(20_000) }
        }
        XCTAssertNil(try XCTUnwrap(client, "pinvaultd did not listen on \(varlink):\n\(daemon.log)").vault("GetPolicy").error)
        XCTAssertNoThrow(try SSHAgentClient(path: agent).roundTrip(), "the agent socket answers REQUEST_IDENTITIES")
        XCTAssertEqual(try daemon.stop(), 0, daemon.log)
    }

    /// What `make install` and `make deb` ship comes from the release flags' folder,
    /// never from .build, where a plain `swift build -c release` links the binaries
    /// against the toolchain's runtime (a RUNPATH into it: lintian's
    /// custom-library-search-path).
    func testInstallAndTheDebianPackage_takeTheBinariesFromTheReleaseFolder() throws {
        let recipe = try Installation.make(["-n", "install", "DESTDIR=/nonexistent-pinvault-stage"])
        XCTAssertEqual(recipe.status, 0, recipe.description)
        let installs = recipe.standardOutput.split(separator: "\n").filter { $0.contains("install -m 0755") && $0.contains("pinvault") }
        for program in ["pinvaultd", "pinvault"] {
            XCTAssertTrue(installs.contains { $0.contains("/.build-release/release/\(program)\"") }, recipe.standardOutput)
        }
        XCTAssertFalse(recipe.standardOutput.contains("/.build/release/"), recipe.standardOutput)
        let rules = try String(contentsOfFile: TestDaemon.repositoryRoot + "/debian/rules", encoding: .utf8)
        XCTAssertTrue(rules.contains("INSTALL_FROM=.build-release/release "), "debian/rules installs another folder's binaries")
    }
}
