import Foundation
import PinVaultTestKit
import XCTest

/// The daemon with the shipped KDF costs (Argon2id opslimit 3, 64 MiB) and no
/// `allow_weak`: the path every real user takes.
final class ProductionParametersTests: DaemonTestCase {
    func testWithDefaultKDFParameters_registerAndAuthenticateWork() throws {
        try startDaemon(removing: ["kdf": ["opslimit", "memlimit_kib", "allow_weak"]])
        let credential = try client.register(user: "production", pin: pin)
        let challenge = Data("production challenge".utf8)
        let auth = try client.authenticate(user: "production", pin: pin, challenge: challenge)
        XCTAssertSuccess(auth)
        let publicKey = try XCTUnwrap(Data(base64Encoded: credential.string("publicKey") ?? ""))
        let signature = try XCTUnwrap(Data(base64Encoded: auth.string("signature") ?? ""))
        XCTAssertTrue(try IndependentEd25519.verify(publicKey: publicKey, signature: signature, message: challenge))
        XCTAssertError(try client.authenticate(user: "production", pin: otherPin), "WrongPin")
        XCTAssertFalse(daemon.log.contains("allow_weak"), daemon.log)
    }
}
