import Foundation
import Glibc
import PinVaultClient
import PinVaultTestKit
import XCTest

/// A socket served by a uid the client does not trust — neither root, the `pinvault`
/// user nor the caller's own — gets nothing: the client reads the server's uid from the
/// kernel before it sends a byte, and throws `.untrustedServer` naming it. (The third
/// review found the client sent a PIN to whatever served the socket.)
final class UntrustedServerTests: XCTestCase {
    func testASocketServedByAnotherUid_getsNoPIN_andTheClientNamesItsUid() async throws {
        guard getuid() == 0 else { try RootOnlySuites.skip(self, "a server as nobody needs root") { XCTSkip($0) } }
        let server = try ForeignUidServer(uid: ForeignUidClient.nobody)
        let pin = PIN("258046")
        do {
            let client = try PinVaultClient(socketPath: server.socketPath, timeout: .seconds(5))
            _ = try await client.authenticate(user: "alice", pin: pin, challenge: [1, 2, 3])
            XCTFail("the call went through")
        } catch {
            XCTAssertEqual(error, .untrustedServer(socketPath: server.socketPath, uid: ForeignUidClient.nobody))
            XCTAssertEqual(error.server?.uid, ForeignUidClient.nobody)
            XCTAssertTrue(error.description.contains("served by uid 65534"), error.description)
        }
        let received = try server.received()
        XCTAssertEqual(received, [], "the server got: \(String(decoding: received, as: UTF8.self))")
        XCTAssertFalse(String(decoding: received, as: UTF8.self).contains("258046"), "the PIN reached it")
    }
}
