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
            // The survivor took the lock first and binds once its vault is open.
            var connected: VarlinkClient?
            let served = Date().addingTimeInterval(20)
            while connected == nil && Date() < served && survivor.process?.isRunning == true {
                connected = try? VarlinkClient(socketPath: shared)
                if connected == nil { usleep(20_000) }
            }
            let client = try XCTUnwrap(connected, "round \(round): the survivor does not serve:\n\(survivor.log)")
            XCTAssertNil(try client.call("io.pinvault.Vault.GetPolicy").error, "the survivor answers on the path")
            client.close()
            XCTAssertEqual(try survivor.stop(), 0, survivor.log)
        }
    }

    /// A second `make run` beside the first: the same sockets and the same state
    /// directory. It must say that another daemon serves the socket, and not first read
    /// the running daemon's live write-ahead log as a vault that was not closed cleanly.
    func testASecondDaemonOnTheSameSocketsAndVault_saysTheSocketIsServed_notThatTheVaultWasNotClosedCleanly() throws {
        let first = try TestDaemon()
        try first.start()
        let client = try first.connect()
        _ = try client.register(user: "alice", pin: "258046")
        client.close()
        var wal = stat()
        XCTAssertEqual(stat(first.stateDirectory + "/vault.sqlite-wal", &wal), 0)
        XCTAssertGreaterThan(wal.st_size, 0, "the running daemon's write-ahead log holds frames")

        let second = try TestDaemon()
        try second.start(arguments: first.standardArguments, waitForSocket: false)
        let status = second.waitForExit(timeout: 20)
        XCTAssertNotNil(status, "the second daemon refuses to start:\n\(second.log)")
        XCTAssertNotEqual(status, 0, second.log)
        XCTAssertTrue(second.log.contains("in use by another process serving it"), second.log)
        XCTAssertFalse(second.log.contains("not closed cleanly"), second.log)
        XCTAssertEqual(try first.stop(), 0, first.log)
    }
}
