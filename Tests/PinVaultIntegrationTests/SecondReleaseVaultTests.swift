import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// A vault the second release wrote, opened by this one: `Fixtures/second-release`
/// holds the `vault.sqlite` and `pepper` that release's own binaries (commit 80f72b4:
/// its release pinvaultd and its pinvault) made, as uid 0, at the test configuration's
/// KDF costs: `alice (app)` and `alice (ssh)`, PIN 258046, never used; `bob`, PIN
/// 370591, after two wrong PINs. Its credentials read `legacy`, keep their PINs and
/// counters, and work where they worked — each door under its own shape check.
final class SecondReleaseVaultTests: DaemonTestCase {
    private let fixture = TestDaemon.repositoryRoot + "/Tests/PinVaultIntegrationTests/Fixtures/second-release"
    private let app = "f57996d29e4117143d4d109f265a0d15"
    private let ssh = "e213b282501c407ffa5916a92c24ffae"
    private let bob = "925081ccf62f8249b584f482c793547e"

    override func setUpWithError() throws {
        try startDaemon(onVaultIn: fixture, whose: "the second release's")
    }

    func testItsCredentials_readLegacy_withTheirCountersKept() throws {
        let listed = try client.list()
        XCTAssertEqual(listed.map { $0.string("keyId") ?? "" }.sorted(), [app, bob, ssh].sorted())
        for credential in listed {
            XCTAssertEqual(credential.string("purpose"), "legacy", "\(credential)")
            XCTAssertEqual(credential.string("algorithm"), "ed25519", "\(credential)")
        }
        XCTAssertEqual(try client.credential(keyId: bob).int("failedAttempts"), 2)
        XCTAssertTrue(eventually(timeout: 10) { daemon.log.contains("legacyCredentials=3") }, daemon.log)
    }

    func testTheirPins_stillOpenThem_andTheRightOneReportsTheWrongOnes() throws {
        let signed = try client.authenticate(user: "alice", pin: pin, keyId: app, challenge: Data("nonce".utf8))
        XCTAssertSuccess(signed)
        let publicKey = try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(signed.string("publicKey"))))
        let signature = try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(signed.string("signature"))))
        XCTAssertTrue(try IndependentEd25519.verify(publicKey: publicKey, signature: signature, message: Data("nonce".utf8)))
        XCTAssertError(try client.authenticate(user: "alice", pin: otherPin, keyId: app), "WrongPin")

        let cleared = try client.authenticate(user: "bob", pin: otherPin)
        XCTAssertSuccess(cleared)
        XCTAssertEqual(cleared.int("failedAttemptsCleared"), 2)
    }

    /// Legacy keys work where they did: Authenticate and Sign sign a relying party's
    /// challenge, the agent an SSH login; but neither signs the other's kind of data.
    func testTheirDoors_eachUnderItsShapeCheck() throws {
        for keyId in [app, ssh] {
            XCTAssertSuccess(try client.vault("Unlock", ["user": "alice", "keyId": keyId, "pin": pin, "ttlSeconds": 60]))
        }
        let sshKey = [UInt8](try XCTUnwrap(Data(base64Encoded: try client.credential(keyId: ssh).string("publicKey") ?? "")))
        let login = SSHAgentClient.userauthRequest(publicKey: sshKey, user: "alice")
        XCTAssertSuccess(try client.vault("Sign", ["keyId": app, "challenge": Data("nonce".utf8).base64EncodedString()]))
        let refused = try client.vault("Sign", ["keyId": ssh, "challenge": Data(login).base64EncodedString()])
        XCTAssertError(refused, "org.varlink.service.InvalidParameter")
        XCTAssertError(try client.authenticate(user: "alice", pin: pin, keyId: ssh, challenge: Data(login)),
                       "org.varlink.service.InvalidParameter")

        let agent = try SSHAgentClient(path: daemon.sshAgentSocketPath, timeoutSeconds: 10)
        try agent.send(SSHAgentClient.signRequest(publicKey: sshKey, data: login))
        XCTAssertEqual(try agent.receiveFrame()[4], SSHAgentClient.signResponse, "the agent signs a login with a legacy key")
        try agent.send(SSHAgentClient.signRequest(publicKey: sshKey, data: Array("nonce".utf8)))
        XCTAssertEqual(try agent.receiveFrame(), SSHAgentClient.failureReply, "but not a relying party's challenge")
        try agent.send(SSHAgentClient.identitiesRequest)
        XCTAssertEqual(try agent.receiveFrame()[8], 2, "both unlocked legacy keys are offered, as before")
    }

    /// A legacy credential keeps its purpose through a new PIN and through a restart.
    func testChangePin_andARestart_keepItLegacy() throws {
        XCTAssertSuccess(try client.vault("ChangePin", ["user": "alice", "keyId": app, "currentPin": pin, "newPin": "493027"]))
        try restartDaemon()
        XCTAssertEqual(try client.credential(keyId: app).string("purpose"), "legacy")
        XCTAssertSuccess(try client.authenticate(user: "alice", pin: "493027", keyId: app))
    }
}
