import Foundation
import PinVaultTestKit
import XCTest

/// A test case that drives one real pinvaultd over its real socket. Subclasses start
/// it with the configuration they need; tear-down stops it with SIGTERM and insists
/// on exit status 0, so every test also checks a clean shutdown.
class DaemonTestCase: XCTestCase {
    var daemon: TestDaemon!
    var client: VarlinkClient!

    /// A PIN that the test policy accepts, and another.
    let pin = "258046"
    let otherPin = "370591"

    /// Starts a daemon with `overrides` over `TestDaemon.testConfiguration` and connects.
    func startDaemon(_ overrides: [String: [String: String]] = [:], removing: [String: [String]] = [:]) throws {
        daemon = try TestDaemon(overrides: overrides, removing: removing)
        try daemon.start()
        client = try daemon.connect()
    }

    /// Starts a daemon on a copy of a vault an earlier build wrote (`vault.sqlite` and
    /// `pepper` in `fixture`) and connects. Its records are sealed for uid 0, their owner:
    /// not as root, the suite is skipped, saying `whose` vault it needs.
    func startDaemon(onVaultIn fixture: String, whose: String) throws {
        guard getuid() == 0 else {
            try RootOnlySuites.skip(self, "\(whose) vault holds uid 0's credentials") { XCTSkip($0) }
        }
        daemon = try TestDaemon(makeDirectories: true)
        for file in ["vault.sqlite", "pepper"] {
            let target = daemon.stateDirectory + "/" + file
            try FileManager.default.copyItem(atPath: fixture + "/" + file, toPath: target)
            XCTAssertEqual(chmod(target, 0o600), 0)
        }
        try daemon.start()
        client = try daemon.connect()
    }

    /// Stops the daemon (SIGTERM, exit 0) and starts it again on the same state.
    func restartDaemon() throws {
        client = nil
        XCTAssertEqual(try daemon.stop(), 0, daemon.log)
        try daemon.start()
        client = try daemon.connect()
    }

    override func tearDownWithError() throws {
        client = nil
        if let daemon, daemon.process != nil {
            XCTAssertEqual(try daemon.stop(), 0, "pinvaultd did not exit cleanly:\n\(daemon.log)")
        }
        daemon = nil
    }

    /// Polls `condition` every 50 ms until it holds or `timeout` passes.
    func eventually(timeout: TimeInterval, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if try condition() { return true }
            usleep(50_000)
        } while Date() < deadline
        return try condition()
    }
}

/// Asserts that `reply` is the error `name` (short form for io.pinvault.Vault errors,
/// full form for org.varlink.service ones).
func XCTAssertError(_ reply: VarlinkResponse, _ name: String, file: StaticString = #filePath, line: UInt = #line) {
    let expected = name.contains(".") ? name : VarlinkClient.vault + "." + name
    XCTAssertEqual(reply.error, expected, reply.description, file: file, line: line)
}

/// Asserts that `reply` is a success.
func XCTAssertSuccess(_ reply: VarlinkResponse, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertNil(reply.error, reply.description, file: file, line: line)
}

extension Dictionary where Key == String, Value == Any {
    func string(_ key: String) -> String? { self[key] as? String }
    func int(_ key: String) -> Int? { (self[key] as? NSNumber)?.intValue }
}
