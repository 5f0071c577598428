import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// A vault the third release wrote (schema version 3), opened by this one:
/// `Fixtures/third-release` holds the `vault.sqlite` and `pepper` that release's own
/// binaries (commit 8da2c47, its debug pinvaultd and pinvault) made, as uid 0, at the
/// test configuration's KDF costs and lockout (`max_attempts = 5`): `alice (app)`, PIN
/// 258046, never used; `bob`, PIN 370591, after two wrong PINs; `carol`, PIN 258046,
/// blocked after five. The migration to schema version 5 carries each count into the
/// wrong PINs since the last success, so that an Unblock of carol is her last.
final class ThirdReleaseVaultTests: DaemonTestCase {
    private let fixture = TestDaemon.repositoryRoot + "/Tests/PinVaultIntegrationTests/Fixtures/third-release"
    private let alice = "88713786ec23d6fa21ce4e5763405f93"
    private let bob = "c2a98e82aae33106c870474fd29c63dd"
    private let carol = "9472904308771992a418284fcd31a68e"

    override func setUpWithError() throws {
        try startDaemon(onVaultIn: fixture, whose: "the third release's")
    }

    /// A wrong PIN for `user`, after sitting out any wait.
    private func wrongPin(_ user: String, _ keyId: String) throws -> VarlinkResponse {
        while true {
            let reply = try client.authenticate(user: user, pin: "111111", keyId: keyId)
            guard reply.errorName == "LockedOut" else { return reply }
            usleep(useconds_t(max(reply.int("retryAfterSeconds") ?? 1, 1)) * 1_000_000)
        }
    }

    func testItsCredentials_keepTheirPinsAndCounts_andTheRightPinReportsTheWrongOnes() throws {
        XCTAssertEqual(try client.list().map { $0.string("keyId") ?? "" }.sorted(), [alice, bob, carol].sorted())
        XCTAssertEqual(Set(try client.list().map { $0.string("algorithm") ?? "" }), ["ed25519"], "format 2 reads as Ed25519")
        XCTAssertEqual(try client.credential(keyId: bob).int("failedAttempts"), 2)
        XCTAssertEqual(try client.credential(keyId: carol).string("state"), "blocked")
        XCTAssertSuccess(try client.authenticate(user: "alice", pin: pin, keyId: alice))
        let cleared = try client.authenticate(user: "bob", pin: otherPin)
        XCTAssertSuccess(cleared)
        XCTAssertEqual(cleared.int("failedAttemptsCleared"), 2)
    }

    /// carol's five wrong PINs count towards the ten (twice max_attempts) after which no
    /// admin may unblock her: one Unblock, five more, and only deleting her is left.
    func testABlockedCredential_isUnblockedOnce_thenRefused() throws {
        let unblock: [String: Any] = ["ownerUid": 0, "user": "carol", "keyId": carol]
        XCTAssertEqual(try client.succeeding("Unblock", unblock).object("credential")?.string("state"), "active")
        let answers = try (0..<5).map { _ in try wrongPin("carol", carol).errorName ?? "ok" }
        XCTAssertEqual(answers, ["WrongPin", "WrongPin", "WrongPin", "WrongPin", "CredentialBlocked"])
        let refused = try client.vault("Unblock", unblock)
        XCTAssertError(refused, "io.pinvault.Vault.UnblockRefused")
        XCTAssertEqual(refused.int("wrongPins"), 10)
        XCTAssertError(try client.authenticate(user: "carol", pin: pin, keyId: carol), "io.pinvault.Vault.CredentialBlocked")
        XCTAssertEqual(try client.succeeding("Wipe", ["user": "carol", "ownerUid": 0]).strings("deletedKeyIds"), [carol])
    }
}
