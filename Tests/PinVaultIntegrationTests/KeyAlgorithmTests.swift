import Foundation
import PinVaultCrypto
import PinVaultTestKit
import XCTest

/// Register's `algorithm`, through a real daemon: a P-256 credential's public key and
/// signatures as a relying party reads them (Python's `cryptography` verifies), and
/// every malformed `algorithm` refused by name with nothing stored.
final class KeyAlgorithmTests: DaemonTestCase {
    private let user = "alice"

    override func setUpWithError() throws {
        try startDaemon()
    }

    func testAP256Credential_signsWhatAnIndependentVerifierAccepts_byAuthenticateAndBySign() throws {
        let credential = try client.register(user: user, pin: pin, algorithm: "p256")
        XCTAssertEqual(credential.string("algorithm"), "p256")
        let keyId = try XCTUnwrap(credential.string("keyId"))
        let publicKey = try XCTUnwrap(credential.string("publicKey").flatMap { Data(base64Encoded: $0) })
        XCTAssertEqual(publicKey.count, 65)
        XCTAssertEqual(publicKey.first, 0x04)
        XCTAssertEqual(try KeyID(publicKey: Array(publicKey)).hex, keyId, "keyId is the hash of the raw point")

        let challenge = Data("a relying party's nonce 7f3a".utf8)
        let answer = try client.authenticate(user: user, pin: pin, keyId: keyId, challenge: challenge)
        XCTAssertSuccess(answer)
        XCTAssertEqual(answer.string("publicKey"), publicKey.base64EncodedString())
        let signature = try XCTUnwrap(answer.string("signature").flatMap { Data(base64Encoded: $0) })
        XCTAssertTrue(try IndependentEd25519.verify(publicKey: publicKey, signature: signature, message: challenge, algorithm: "p256"))
        XCTAssertFalse(try IndependentEd25519.verify(
            publicKey: publicKey, signature: signature, message: Data("another".utf8), algorithm: "p256"))

        _ = try client.succeeding("Unlock", ["user": user, "keyId": keyId, "pin": pin, "ttlSeconds": 60])
        let signed = try client.succeeding("Sign", ["keyId": keyId, "challenge": challenge.base64EncodedString()])
        let second = try XCTUnwrap(signed.string("signature").flatMap { Data(base64Encoded: $0) })
        XCTAssertTrue(try IndependentEd25519.verify(publicKey: publicKey, signature: second, message: challenge, algorithm: "p256"))
        XCTAssertEqual(try client.credential(keyId: keyId).string("algorithm"), "p256")
    }

    func testTheDefault_isEd25519_asBefore() throws {
        let credential = try client.register(user: user, pin: pin)
        XCTAssertEqual(credential.string("algorithm"), "ed25519")
        XCTAssertEqual(credential.string("publicKey").flatMap { Data(base64Encoded: $0) }?.count, 32)
        let named = try client.register(user: user, pin: pin, label: "named", algorithm: "ed25519")
        XCTAssertEqual(named.string("algorithm"), "ed25519")
    }

    /// Wrong, mistyped and unknown values: InvalidParameter(algorithm), and nothing stored.
    func testAMalformedAlgorithm_isInvalidParameterAlgorithm_andNothingIsStored() throws {
        let values: [Any] = ["", "P256", "p-256", "ed448", "rsa", " p256", "p256\u{0}", 256, true, ["p256"], ["name": "p256"]]
        for value in values {
            let reply = try client.vault("Register", ["user": user, "pin": pin, "algorithm": value])
            XCTAssertError(reply, "org.varlink.service.InvalidParameter")
            XCTAssertEqual(reply.string("parameter"), "algorithm", "\(value)")
        }
        XCTAssertEqual(try client.list().count, 0, "nothing stored")
        // null is an absent optional parameter, as everywhere in the interface: the default.
        let absent = try client.succeeding("Register", ["user": user, "pin": pin, "algorithm": NSNull()])
        XCTAssertEqual(absent.object("credential")?.string("algorithm"), "ed25519")
    }
}
