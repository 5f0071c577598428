import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// Two pinvaultd started at once on one socket path (SECURITY.md, "The socket"): the
/// one holding `<socket>.lock` serves, the other refuses to start; neither unlinks the
/// other's live socket.
final class SocketLockTests: XCTestCase {
    func testTwoDaemonsStartedAtOnce_oneServes_theOtherRefuses() throws {
        for round in 0..<5 {
            let first = try TestDaemon()
            let second = try TestDaemon()
            let shared = first.socketPath
            let arguments = { (daemon: TestDaemon) in
                ["--config", daemon.configPath, "--socket", shared, "--state-directory", daemon.stateDirectory]
            }
            try first.start(arguments: arguments(first), waitForSocket: false)
            try second.start(arguments: arguments(second), waitForSocket: false)
            var statuses: [Int32?] = [nil, nil]
            let deadline = Date().addingTimeInterval(20)
            while statuses.allSatisfy({ $0 == nil }) && Date() < deadline {
                statuses = [first.waitForExit(timeout: 0.05), second.waitForExit(timeout: 0.05)]
            }
            let exited = statuses.enumerated().filter { $0.element != nil }
            XCTAssertEqual(exited.count, 1, "round \(round): exactly one daemon refuses:\n\(first.log)\n\(second.log)")
            guard exited.count == 1, let loser = exited.first else { continue }
            XCTAssertNotEqual(loser.element, 0)
            let survivor = loser.offset == 0 ? second : first
            let refused = loser.offset == 0 ? first : second
            XCTAssertTrue(refused.log.contains("in use"), refused.log)
            let client = try VarlinkClient(socketPath: shared)
            XCTAssertNil(try client.call("io.pinvault.Vault.GetPolicy").error, "the survivor answers on the path")
            client.close()
            XCTAssertEqual(try survivor.stop(), 0, survivor.log)
        }
    }
}
