import Foundation
import PinVaultTestKit
import XCTest

/// The whole credential lifecycle against a real pinvaultd over its real socket.
final class LifecycleTests: XCTestCase {
    var daemon: TestDaemon!
    var client: VarlinkClient!

    override func setUpWithError() throws {
        daemon = try TestDaemon()
        try daemon.start()
        client = try daemon.connect()
    }

    override func tearDownWithError() throws {
        client = nil
        if daemon.process != nil {
            XCTAssertEqual(try daemon.stop(), 0, daemon.log)
        }
        daemon = nil
    }

    func testRegisterThenAuthenticate_signsTheChallengeWithTheRegisteredKey() throws {
        let registered = try client.call("io.pinvault.Vault.Register", ["user": "alice@example.org", "pin": "258046", "label": "laptop"])
        XCTAssertNil(registered.error, registered.description)
        let credential = try XCTUnwrap(registered.object("credential"))
        XCTAssertEqual(credential["user"] as? String, "alice@example.org")
        XCTAssertEqual(credential["label"] as? String, "laptop")
        XCTAssertEqual(credential["state"] as? String, "active")
        XCTAssertEqual((credential["keyId"] as? String)?.count, 32)
        XCTAssertEqual(credential["ownerUid"] as? Int, Int(getuid()))

        let challenge = Data("sign me".utf8).base64EncodedString()
        let auth = try client.call("io.pinvault.Vault.Authenticate", ["user": "alice@example.org", "pin": "258046", "challenge": challenge])
        XCTAssertNil(auth.error, auth.description)
        XCTAssertEqual(auth.string("keyId"), credential["keyId"] as? String)
        XCTAssertEqual(auth.string("publicKey"), credential["publicKey"] as? String)
        XCTAssertEqual(Data(base64Encoded: auth.string("signature") ?? "")?.count, 64)
        XCTAssertEqual(auth.bool("pinPolicyOutdated"), false)
    }

    func testAuthenticate_withWrongPin_answersWrongPinWithRemainingAttempts() throws {
        _ = try client.call("io.pinvault.Vault.Register", ["user": "bob", "pin": "258046"])
        let reply = try client.call("io.pinvault.Vault.Authenticate", ["user": "bob", "pin": "999999", "challenge": "AA=="])
        XCTAssertEqual(reply.error, "io.pinvault.Vault.WrongPin")
        XCTAssertEqual(reply.int("remainingAttempts"), 4)
    }

    func testGetInfo_namesVendorProductAndInterfaces() throws {
        let info = try client.call("org.varlink.service.GetInfo")
        XCTAssertNil(info.error)
        XCTAssertEqual(info.string("vendor"), "PinVault")
        XCTAssertEqual(info.string("product"), "pinvaultd")
        XCTAssertEqual(info.strings("interfaces"), ["org.varlink.service", "io.pinvault.Vault"])
    }
}
