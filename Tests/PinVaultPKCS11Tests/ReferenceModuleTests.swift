import Foundation
import PinVaultTestKit
import XCTest

/// The same calls against SoftHSM2 (the reference software token) and PinVault
/// (pkcs11/tests/conformance.py): where PKCS#11 3.0 says what a module must answer,
/// both answer it. Where the standard leaves the choice, or SoftHSM2 departs from it,
/// PinVault's answer is asserted on its own.
final class ReferenceModuleTests: PKCS11TestCase {
    /// What PKCS#11 fixes, so both modules must agree.
    private static let mandated = [
        "C_Initialize again", "C_GetInfo", "C_GetTokenInfo of no slot", "C_GetMechanismList", "CKM_EDDSA listed",
        "C_OpenSession without CKF_SERIAL_SESSION", "C_OpenSession", "token flags",
        "private keys before login", "public keys before login", "C_Login with a wrong PIN", "C_Login", "C_Login again",
        "private keys after login", "C_GetAttributeValue", "private key",
        "C_GetAttributeValue CKA_VALUE of the private key", "C_GetAttributeValue CKA_MODULUS of the private key",
        "C_Sign without C_SignInit", "C_SignInit with the public key", "C_SignInit", "C_SignInit while signing",
        "C_Sign after a failed C_SignUpdate", "C_Sign", "C_Sign after the signature", "C_Logout",
        "private keys after logout", "C_CloseSession", "C_CloseSession again", "C_Finalize", "C_GetInfo after C_Finalize",
    ]

    /// A value of the scripts' JSON as text that compares equal when the values do.
    private func canonical(_ value: Any?) -> String {
        guard let value else { return "missing" }
        if let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]) {
            return String(decoding: data, as: UTF8.self)
        }
        return String(describing: value)
    }

    /// SoftHSM2 with a fresh token holding one Ed25519 key pair made by pkcs11-tool.
    private func softHSM() throws -> [String: String] {
        let tokens = home.path + "/softhsm-tokens"
        try FileManager.default.createDirectory(atPath: tokens, withIntermediateDirectories: true)
        let conf = try file("softhsm2.conf", Data("directories.tokendir = \(tokens)\nobjectstore.backend = file\nlog.level = ERROR\n".utf8))
        let environment = ["SOFTHSM2_CONF": conf]
        // SoftHSM2 takes its PINs on argv only: the throwaway test PIN of a throwaway token.
        let made = try run("/usr/bin/softhsm2-util", ["--init-token", "--free", "--label", "reference", "--pin", pin,
                                                      "--so-pin", "12345678"], environment: environment)
        XCTAssertEqual(made.status, 0, made.output)
        let key = try run("/usr/bin/pkcs11-tool", ["--module", "/usr/lib/softhsm/libsofthsm2.so", "--token-label", "reference",
                                                   "--login", "--pin", pin, "--keypairgen", "--key-type", "EC:edwards25519",
                                                   "--id", "01", "--label", "reference"], environment: environment)
        XCTAssertEqual(key.status, 0, key.output)
        return environment
    }

    func testTheSameCalls_answerAsTheReferenceModuleDoes_whereThePKCS11StandardSaysTheyMust() throws {
        try startDaemon()
        try register("alice", label: "laptop")
        let reference = try python("conformance.py", ["/usr/lib/softhsm/libsofthsm2.so", "reference"], environment: try softHSM())
        let pinVault = try python("conformance.py", [modules.pkcs11Module, "alice (laptop)"])

        for step in Self.mandated {
            XCTAssertNotNil(reference[step], "SoftHSM2 gave no \(step)")
            XCTAssertEqual(canonical(pinVault[step]), canonical(reference[step]), "\(step): PinVault and SoftHSM2 differ")
        }
        // The values both must have, so that agreeing on a wrong answer fails too.
        XCTAssertEqual(pinVault["C_Login with a wrong PIN"] as? String, "CKR_PIN_INCORRECT")
        XCTAssertEqual(pinVault["C_Login again"] as? String, "CKR_USER_ALREADY_LOGGED_IN")
        XCTAssertEqual(pinVault["C_GetAttributeValue CKA_VALUE of the private key"] as? String, "CKR_ATTRIBUTE_SENSITIVE")
        XCTAssertEqual(pinVault["C_Sign after a failed C_SignUpdate"] as? String, "CKR_OPERATION_NOT_INITIALIZED",
                       "a failed C_SignUpdate ends the operation (PKCS#11 §5.12)")
        XCTAssertEqual(pinVault["private keys before login"] as? Int, 0)
        XCTAssertEqual(pinVault["private keys after login"] as? Int, 1)
        XCTAssertEqual(pinVault["C_GetInfo after C_Finalize"] as? String, "CKR_CRYPTOKI_NOT_INITIALIZED")

        // Where SoftHSM2 parts from the standard, PinVault keeps to it.
        XCTAssertEqual(pinVault["C_Logout again"] as? String, "CKR_USER_NOT_LOGGED_IN")
        XCTAssertNotEqual(pinVault["C_SignUpdate"] as? String, "CKR_OK", "CKM_EDDSA is single-part")
        XCTAssertEqual(pinVault["C_GenerateRandom"] as? String, "CKR_FUNCTION_NOT_SUPPORTED")

        // Both signatures verify, each with its own module's public key.
        let message = Data("conformance: the same calls to every module".utf8)
        for (name, results) in [("SoftHSM2", reference), ("PinVault", pinVault)] {
            guard let key = Data(hex: results["public key"] as? String ?? ""), let signature = Data(hex: results["signature"] as? String ?? ""),
                  key.count == 32, signature.count == 64 else {
                XCTFail("\(name) gave no key or signature: \(results)")
                continue
            }
            XCTAssertTrue(try opensslVerifies(publicKey: key, signature: signature, message: message), name)
        }
    }
}
