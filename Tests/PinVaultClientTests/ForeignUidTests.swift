import Foundation
import Glibc
import PinVaultClient
import PinVaultTestKit
import XCTest

/// A client running as another uid (`nobody`) against root's daemon: it sees none of
/// root's credentials and is refused admin powers with `.permissionDenied`.
///
/// The client process is this test binary itself, re-executed through `setpriv` with
/// `childEnvironment` set, so that only `testChild_asNobody_isRefusedAdminPowers` runs.
final class ForeignUidTests: ClientTestCase {
    private static let childEnvironment = "PINVAULT_CLIENT_FOREIGN_UID_SOCKET"
    /// What the child prints once every assertion ran, so a skip cannot pass for success.
    private static let doneMarker = "foreign-uid-client: all checks ran"

    func testAClientOfAnotherUid_seesNoCredentialOfRoot_andIsPermissionDenied() async throws {
        guard getuid() == 0 else { try RootOnlySuites.skip(self, "a client as nobody needs root") { XCTSkip($0) } }
        try startDaemon()
        try await register("alice")
        // Staged where nobody can reach it: the checkout may sit in a 0700 home.
        let testBinary = try WorldReadableStage.copy(of: CommandLine.arguments[0])
        let result = try Subprocess.run(
            "/usr/bin/setpriv",
            ["--reuid=\(ForeignUidClient.nobody)", "--regid=\(ForeignUidClient.nobody)", "--clear-groups", "--",
             testBinary, "PinVaultClientTests.ForeignUidTests/testChild_asNobody_isRefusedAdminPowers"],
            environment: ProcessInfo.processInfo.environment.merging([Self.childEnvironment: daemon.socketPath]) { $1 },
            timeout: 60
        )
        XCTAssertEqual(result.status, 0, result.description)
        XCTAssertTrue(result.standardOutput.contains(Self.doneMarker) || result.standardError.contains(Self.doneMarker), result.description)
        let failedAttempts = try await client.list(user: "alice").first?.failedAttempts
        XCTAssertEqual(failedAttempts, 0)
    }

    /// Runs only in the child started above, as uid 65534.
    func testChild_asNobody_isRefusedAdminPowers() async throws {
        guard let socketPath = ProcessInfo.processInfo.environment[Self.childEnvironment] else {
            throw XCTSkip("runs only as the child of testAClientOfAnotherUid_seesNoCredentialOfRoot_andIsPermissionDenied")
        }
        XCTAssertEqual(getuid(), ForeignUidClient.nobody)
        let client = try PinVaultClient(socketPath: socketPath)
        let listed = try await client.list()
        XCTAssertEqual(listed, [])
        await XCTAssertThrowsPinVaultError(.noSuchCredential) {
            try await client.authenticate(user: "alice", pin: PIN("258046"), challenge: [1])
        }
        await XCTAssertThrowsPinVaultError(.permissionDenied) { try await client.stats() }
        await XCTAssertThrowsPinVaultError(.permissionDenied) { try await client.list(ownerUid: 0) }
        await XCTAssertThrowsPinVaultError(.permissionDenied) {
            try await client.authenticate(user: "alice", pin: PIN("258046"), challenge: [1], ownerUid: 0)
        }
        await XCTAssertThrowsPinVaultError(.permissionDenied) { try await client.resetEverything() }
        print(Self.doneMarker)
    }
}
