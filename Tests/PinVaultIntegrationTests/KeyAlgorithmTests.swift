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

    /// SignDigest, as the PKCS#11 module's ssh tokens use it: a P-256 ssh key signs a
    /// SHA-256 digest, and the signature verifies (Python's `cryptography`) as ECDSA over
    /// the message hashed; every other case is refused by name.
    func testSignDigest_signsAHashWithAnUnlockedP256SSHKey_only() throws {
        let ssh = try client.register(user: user, pin: pin, label: "ssh", purpose: "ssh", algorithm: "p256")
        let keyId = try XCTUnwrap(ssh.string("keyId"))
        let publicKey = try XCTUnwrap(ssh.string("publicKey").flatMap { Data(base64Encoded: $0) })
        let message = Data("what ssh -I hashed".utf8)
        let digest = Data(message.withUnsafeBytes { SHA256.hash($0) })
        let request: [String: Any] = ["keyId": keyId, "digest": digest.base64EncodedString()]
        XCTAssertError(try client.vault("SignDigest", request), "NotUnlocked")

        _ = try client.succeeding("Unlock", ["user": user, "keyId": keyId, "pin": pin, "ttlSeconds": 60])
        let signed = try client.succeeding("SignDigest", request)
        let signature = try XCTUnwrap(signed.string("signature").flatMap { Data(base64Encoded: $0) })
        XCTAssertTrue(try IndependentEd25519.verify(publicKey: publicKey, signature: signature, message: message, algorithm: "p256"))
        for bad in [Data(count: 31), Data(count: 33), Data()] {
            let reply = try client.vault("SignDigest", ["keyId": keyId, "digest": bad.base64EncodedString()])
            XCTAssertError(reply, "org.varlink.service.InvalidParameter")
            XCTAssertEqual(reply.string("parameter"), "digest")
        }

        // An Ed25519 ssh key signs whole messages only.
        let ed25519 = try XCTUnwrap(try client.register(user: user, pin: pin, label: "ed", purpose: "ssh").string("keyId"))
        _ = try client.succeeding("Unlock", ["user": user, "keyId": ed25519, "pin": pin, "ttlSeconds": 60])
        let refused = try client.vault("SignDigest", ["keyId": ed25519, "digest": digest.base64EncodedString()])
        XCTAssertError(refused, "org.varlink.service.InvalidParameter")
        XCTAssertEqual(refused.string("parameter"), "keyId")

        // A P-256 key of any other purpose: WrongPurpose, as at any door it does not serve.
        let app = try XCTUnwrap(try client.register(user: user, pin: pin, label: "app", algorithm: "p256").string("keyId"))
        _ = try client.succeeding("Unlock", ["user": user, "keyId": app, "pin": pin, "ttlSeconds": 60])
        let wrong = try client.vault("SignDigest", ["keyId": app, "digest": digest.base64EncodedString()])
        XCTAssertError(wrong, "WrongPurpose")
        XCTAssertEqual(wrong.string("purpose"), "authenticate")
    }
}
