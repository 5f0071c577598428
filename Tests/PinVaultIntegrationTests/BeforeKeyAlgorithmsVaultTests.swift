import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// A vault the build before key algorithms wrote (schema version 5, every record format
/// 2), opened by this one: `Fixtures/before-key-algorithms` holds the `vault.sqlite` and
/// `pepper` that main's own debug pinvaultd and pinvault made at commit d516ee4, as uid 0,
/// at the test configuration's KDF costs and lockout: `alice (app)` and `alice (ssh)`
/// (with an OpenSSH certificate attached), PIN 258046, never used; `bob`, PIN 370591,
/// after two wrong PINs; `carol`, a login key, PIN 258046. The migration to schema 6
/// reads every row as Ed25519 and keeps every other column; the keys, PINs, counts and
/// certificate work as they did, beside a P-256 key registered now.
final class BeforeKeyAlgorithmsVaultTests: DaemonTestCase {
    private let fixture = TestDaemon.repositoryRoot + "/Tests/PinVaultIntegrationTests/Fixtures/before-key-algorithms"
    private let app = "0be12184c6e5088fc1574a44c53d9a0a"
    private let ssh = "35e8957a4fadb9b3bc120ca314de3427"
    private let bob = "606b036e6e7d00d29766f27f7a4726e2"
    private let carol = "70122a76239ae02a820c9fe665d19e87"

    override func setUpWithError() throws {
        try startDaemon(onVaultIn: fixture, whose: "the build before key algorithms'")
    }

    func testItsCredentials_readAsEd25519_withTheirPurposesCountsAndCertificate() throws {
        let listed = try client.list()
        XCTAssertEqual(listed.map { $0.string("keyId") ?? "" }.sorted(), [app, bob, carol, ssh].sorted())
        XCTAssertEqual(Set(listed.map { $0.string("algorithm") ?? "" }), ["ed25519"])
        XCTAssertEqual(try client.credential(keyId: ssh).string("purpose"), "ssh")
        XCTAssertEqual(try client.credential(keyId: carol).string("purpose"), "login")
        XCTAssertEqual(try client.credential(keyId: bob).int("failedAttempts"), 2)
        XCTAssertEqual((try client.credential(keyId: ssh)["sshCertificates"] as? [String])?.count, 1)
    }

    func testItsKeys_signAsBefore_andAP256KeyJoinsThem() throws {
        let signed = try client.authenticate(user: "alice", pin: pin, keyId: app, challenge: Data("nonce".utf8))
        XCTAssertSuccess(signed)
        let publicKey = try XCTUnwrap(signed.string("publicKey").flatMap { Data(base64Encoded: $0) })
        let signature = try XCTUnwrap(signed.string("signature").flatMap { Data(base64Encoded: $0) })
        XCTAssertTrue(try IndependentEd25519.verify(publicKey: publicKey, signature: signature, message: Data("nonce".utf8)))
        let cleared = try client.authenticate(user: "bob", pin: otherPin)
        XCTAssertSuccess(cleared)
        XCTAssertEqual(cleared.int("failedAttemptsCleared"), 2)

        // The ssh key and its certificate, offered and signing through the agent socket.
        _ = try client.succeeding("Unlock", ["user": "alice", "keyId": ssh, "pin": pin, "ttlSeconds": 60])
        let sshKey = [UInt8](try XCTUnwrap(try client.credential(keyId: ssh).string("publicKey").flatMap { Data(base64Encoded: $0) }))
        let agent = try SSHAgentClient(path: daemon.sshAgentSocketPath, timeoutSeconds: 10)
        try agent.send(SSHAgentClient.identitiesRequest)
        let identities = try agent.receiveFrame()
        XCTAssertEqual(Array(identities[5..<9]), [0, 0, 0, 2], "the key and its certificate")
        try agent.send(SSHAgentClient.signRequest(publicKey: sshKey, data: SSHAgentClient.userauthRequest(publicKey: sshKey, user: "alice")))
        XCTAssertEqual(try agent.receiveFrame()[4], SSHAgentClient.signResponse)

        let p256 = try client.register(user: "alice", pin: pin, label: "p256", algorithm: "p256")
        XCTAssertEqual(p256.string("algorithm"), "p256")
        try restartDaemon()
        XCTAssertSuccess(try client.authenticate(user: "alice", pin: pin, keyId: app))
        XCTAssertSuccess(try client.authenticate(user: "alice", pin: pin, keyId: try XCTUnwrap(p256.string("keyId"))))
        XCTAssertEqual(try client.list().count, 5)
    }
}
