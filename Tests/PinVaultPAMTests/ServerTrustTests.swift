import Foundation
import PinVaultTestKit
import XCTest

/// The module talks only to a socket served by root or `server_user` (SO_PEERCRED):
/// anything else could be a process that wants the PIN.
final class ServerTrustTests: PAMTestCase {
    private let nobody = ForeignUidClient.nobody

    func testAServerOfAnotherUid_isRefused_andReceivesNothing() throws {
        let fake = try ForeignUidVarlinkServer(uid: nobody, user: user.name, ownerUid: user.uid)
        let outcome = try pamtester(try onlyModule(socket: fake.socketPath), input: pin + "\n")
        XCTAssertTrue(outcome.failed(with: PAMResult.authInfoUnavailable), outcome.description)
        XCTAssertEqual(outcome.prompts, 0, "no PIN is asked for a server that is not trusted: \(outcome)")
        let received = fake.received
        XCTAssertEqual(received, [], "sent to an untrusted server: \(String(decoding: received, as: UTF8.self))")
        XCTAssertNil(String(decoding: received, as: UTF8.self).range(of: pin))
    }

    /// The same fake server, now named by server_user=: the PIN is sent (so the test
    /// above can see one arrive), and the fake's signature does not verify.
    func testServerUser_isTrusted_butAForgedSignatureIsAuthErr() throws {
        let fake = try ForeignUidVarlinkServer(uid: nobody, user: user.name, ownerUid: user.uid)
        let outcome = try pamtester(try onlyModule(["server_user=nobody"], socket: fake.socketPath), input: pin + "\n")
        XCTAssertEqual(outcome.prompts, 1, outcome.description)
        XCTAssertTrue(outcome.failed(with: PAMResult.authError), "a signature that does not verify: \(outcome)")
        let received = String(decoding: fake.received, as: UTF8.self)
        XCTAssertTrue(received.contains("\"pin\":\"\(pin)\""), received)
        XCTAssertTrue(received.contains("\"ownerUid\":\(user.uid)"), received)
    }
}
