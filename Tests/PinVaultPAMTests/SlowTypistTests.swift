import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// A user slower at the prompt than the daemon keeps an idle connection
/// (`server.idle_timeout_seconds`, set to 1 s here) still signs in: the module holds
/// no connection while the user types, and connects again once the PIN is in.
///
/// The answer comes only once the daemon serves no connection but the test's own and
/// the idle timeout has passed since the prompt: a module that kept its List
/// connection would by then have lost it to the daemon's idle timer, whatever the
/// machine's speed, so the test does not depend on timing to bite.
final class SlowTypistTests: PAMTestCase {
    private let idleTimeoutSeconds = 1.0

    func testAnAnswerAfterTheIdleTimeout_signsIn() throws {
        try startDaemon(["server": ["idle_timeout_seconds": "\(Int(idleTimeoutSeconds))"]])
        try registerAsUser()
        let service = try onlyModule()
        for asUser in [false, true] {
            let outcome = try pamtesterAnsweringLate(service, asUser: asUser)
            XCTAssertTrue(outcome.succeeded, "as \(asUser ? "the user" : "root"): \(outcome)\npinvaultd:\n\(daemon.log)")
            XCTAssertEqual(outcome.prompts, 1, outcome.description)
        }
        XCTAssertFalse(daemon.log.contains("idle for server.idle_timeout_seconds"),
                       "the module held a connection while the user typed:\n\(daemon.log)")
    }

    /// pamtester with its answer held back until the prompt was shown, the idle
    /// timeout has passed, and the daemon serves no connection of the module.
    private func pamtesterAnsweringLate(_ service: PAMServiceFile, asUser: Bool) throws -> Outcome {
        let directory = try TemporaryDirectory()
        let outputPath = directory.path + "/output"
        FileManager.default.createFile(atPath: outputPath, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        let input = Pipe()
        let process = Process()
        let command = ["/usr/bin/pamtester", service.name, user.name, "authenticate"]
        process.executableURL = URL(fileURLWithPath: asUser ? "/usr/bin/setpriv" : command[0])
        process.arguments = asUser ? user.setpriv(command) : Array(command.dropFirst())
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        defer {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        func text() -> String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

        try waitFor("the prompt") { text().contains("PIN for \(user.name): ") || !process.isRunning }
        let prompted = Date()
        try waitFor("the module's connection to be gone and the idle timeout to pass") {
            let connections = (try daemonCounters()["activeConnections"] as? NSNumber)?.intValue
            return connections == 1 && Date().timeIntervalSince(prompted) > idleTimeoutSeconds + 0.5
        }
        input.fileHandleForWriting.write(Data((pin + "\n").utf8))
        try input.fileHandleForWriting.close()
        try waitFor("pamtester to end") { !process.isRunning }
        return Outcome(status: process.terminationStatus, output: text())
    }

    private func waitFor(_ what: String, timeout: TimeInterval = 30, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while try !condition() {
            guard Date() < deadline else { throw TestKitError("waited \(timeout) s for \(what)") }
            usleep(50_000)
        }
    }
}
