import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// The command line trusts a socket served by root, the `pinvault` user or its own
/// uid, and sends nothing to any other: played with real uids, a server as nobody and
/// `pinvault` as nobody (its own uid: served) and as another uid (refused, exit 69).
final class UntrustedServerCommandTests: XCTestCase {
    /// A uid other than nobody's, with no account needed (setpriv takes numbers).
    private let otherUid: UInt32 = 65533

    override func setUpWithError() throws {
        guard getuid() == 0 else {
            try RootOnlySuites.skip(self, "pinvault and a server as other uids through setpriv need root") { XCTSkip($0) }
        }
    }

    func testAServerOfAnotherUid_isRefused_beforeAnythingIsSent() throws {
        let server = try ForeignUidServer(uid: ForeignUidClient.nobody)
        let result = try PinVaultBinary.run(
            ["auth", "alice", "--challenge-hex", "00", "--pin-stdin", "--json", "--socket", server.socketPath],
            input: "258046\n", uid: otherUid
        )
        XCTAssertEqual(result.status, 69, result.description)
        let error = try CLITestCase.object(result.standardOutput)
        XCTAssertEqual(error["error"] as? String, "io.pinvault.cli.UntrustedServer", result.description)
        XCTAssertEqual((error["parameters"] as? [String: Any])?["uid"] as? Int, Int(ForeignUidClient.nobody), result.description)
        XCTAssertEqual(try server.received(), [], "nothing was sent, not even the method")
    }

    func testAServerOfTheCallersOwnUid_isServed() throws {
        let server = try ForeignUidServer(
            uid: ForeignUidClient.nobody, answer: #"{"error":"io.pinvault.Vault.InternalError","parameters":{}}"#
        )
        let result = try PinVaultBinary.run(["policy", "--socket", server.socketPath], uid: ForeignUidClient.nobody)
        XCTAssertEqual(result.status, 1, "the server's answer reached it: \(result)")
        XCTAssertTrue(String(decoding: try server.received(), as: UTF8.self).contains("io.pinvault.Vault.GetPolicy"))
    }
}
