import Foundation
import PinVaultTestKit
import XCTest

/// A test case that runs the `pinvault` binary against one real pinvaultd (weak KDF).
/// Tear-down stops the daemon with SIGTERM and insists on exit status 0.
class CLITestCase: XCTestCase {
    var daemon: TestDaemon!

    /// PINs that the test policy accepts.
    let pin = "258046"
    let otherPin = "370591"
    /// A PIN that is well-formed but wrong for every credential here.
    let wrongPin = "804613"

    override func setUpWithError() throws {
        try startDaemon()
    }

    /// Starts a daemon with `overrides` over `TestDaemon.testConfiguration`.
    func startDaemon(_ overrides: [String: [String: String]] = [:], removing: [String: [String]] = [:]) throws {
        daemon = try TestDaemon(overrides: overrides, removing: removing)
        try daemon.start()
    }

    override func tearDownWithError() throws {
        if let daemon, daemon.process != nil {
            XCTAssertEqual(try daemon.stop(), 0, "pinvaultd did not exit cleanly:\n\(daemon.log)")
        }
        daemon = nil
    }

    /// Runs `pinvault arguments --socket <the test daemon>`.
    @discardableResult
    func pinvault(_ arguments: [String], input: String = "", uid: UInt32? = nil, shell: String? = nil) throws -> Subprocess.Result {
        try PinVaultBinary.run(arguments + ["--socket", daemon.socketPath], input: input, uid: uid, shell: shell)
    }

    /// Runs `pinvault arguments --json` and parses its stdout as one JSON object.
    func pinvaultJSON(
        _ arguments: [String], input: String = "", expecting status: Int32 = 0,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> [String: Any] {
        let result = try pinvault(arguments + ["--json"], input: input)
        XCTAssertEqual(result.status, status, result.description, file: file, line: line)
        return try Self.object(result.standardOutput)
    }

    /// `text` parsed as one JSON object.
    static func object(_ text: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw TestKitError("not a JSON object: \(text)")
        }
        return object
    }

    /// Registers through the CLI (PIN on stdin) and returns the credential's JSON.
    @discardableResult
    func register(_ user: String = "alice", pin: String? = nil, label: String? = nil, purpose: String? = nil) throws -> [String: Any] {
        let arguments = ["register", user, "--pin-stdin"] + (label.map { ["--label", $0] } ?? [])
            + (purpose.map { ["--purpose", $0] } ?? [])
        let reply = try pinvaultJSON(arguments, input: (pin ?? self.pin) + "\n")
        guard let credential = reply["credential"] as? [String: Any] else { throw TestKitError("no credential in \(reply)") }
        return credential
    }

    /// The key id of a credential registered through `register`.
    func registerKeyId(_ user: String = "alice", pin: String? = nil, label: String? = nil) throws -> String {
        guard let keyId = try register(user, pin: pin, label: label)["keyId"] as? String else {
            throw TestKitError("no keyId")
        }
        return keyId
    }

    /// `pinvault auth USER --challenge-hex … --pin-stdin` with `attempt` as the PIN.
    func authenticate(_ user: String = "alice", pin attempt: String, extra: [String] = []) throws -> Subprocess.Result {
        try pinvault(["auth", user, "--challenge-hex", "6e6f6e6365", "--pin-stdin"] + extra, input: attempt + "\n")
    }

    /// The credentials `pinvault list --json` shows.
    func listed() throws -> [[String: Any]] {
        let reply = try pinvaultJSON(["list"])
        guard let credentials = reply["credentials"] as? [[String: Any]] else { throw TestKitError("no credentials in \(reply)") }
        return credentials
    }

    /// Skips the test unless it runs as root (needed to act as another uid).
    func requireRoot() throws {
        guard getuid() == 0 else {
            try RootOnlySuites.skip(self, "pinvault as uid 65534 through setpriv needs root") { XCTSkip($0) }
        }
    }
}
