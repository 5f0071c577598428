import Foundation
import PinVaultTestKit
import XCTest

/// What outside conformance suites (google/pkcs11test, Java's SunPKCS11) found: every
/// slot ID the module would report is valid straight after C_Initialize, and
/// CKM_EDDSA signs a whole document (an X.509 certificate with many names), not only
/// a short challenge.
final class SlotAndMessageTests: PKCS11TestCase {
    /// PyKCS11 without C_GetSlotList: C_Initialize (load), then slot IDs straight away.
    func testPyKCS11_opensSlotsByNumber_withoutGetSlotList() throws {
        try startDaemon()
        let alice = try register("alice", label: "laptop")
        let bob = try register("bob")
        let result = try run("/usr/bin/python3", ["-c", #"""
            import json, sys, PyKCS11
            lib = PyKCS11.PyKCS11Lib(); lib.load(sys.argv[1])   # C_GetFunctionList, C_Initialize: no C_GetSlotList
            out = {}
            def answer(name, call):
                try:
                    call(); out[name] = "CKR_OK"
                except PyKCS11.PyKCS11Error as error:
                    out[name] = PyKCS11.CKR[error.value]
            out["slot 1"] = lib.getSlotInfo(1).slotDescription.strip()
            answer("slot 2", lambda: lib.getSlotInfo(2))
            out["token 0"] = lib.getTokenInfo(0).label.strip()
            session = lib.openSession(0)
            session.login(sys.stdin.readline().rstrip("\n"))
            key = session.findObjects([(PyKCS11.CKA_CLASS, PyKCS11.CKO_PRIVATE_KEY)])[0]
            message = b"slot 0, opened by number"
            out["signature"] = bytes(session.sign(key, message, PyKCS11.Mechanism(PyKCS11.CKM_EDDSA, None))).hex()
            print(json.dumps(out))
            """#, modules.pkcs11Module], input: pin + "\n")
        XCTAssertEqual(result.status, 0, result.output)
        guard let line = result.output.split(separator: "\n").last,
              let answers = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            return XCTFail("no answers: \(result.output)")
        }
        // Slots are numbered in List's order (the daemon's, not registration's): both are there, one each.
        let first = try XCTUnwrap(answers["token 0"] as? String, "\(answers)")
        XCTAssertTrue(["alice (laptop)", "bob"].contains(first), "\(answers)")
        let other = first == "bob" ? "alice (laptop)" : "bob"
        XCTAssertEqual(answers["slot 1"] as? String, "PinVault " + other, "\(answers)")
        XCTAssertEqual(answers["slot 2"] as? String, "CKR_SLOT_ID_INVALID", "a slot the module would not report: \(answers)")
        let signature = try XCTUnwrap(Data(hex: answers["signature"] as? String ?? ""))
        XCTAssertTrue(try opensslVerifies(publicKey: first == "bob" ? bob.publicKey : alice.publicKey, signature: signature,
                                          message: Data("slot 0, opened by number".utf8)))
    }

    /// A 16 KiB message (an X.509 certificate with many names) signs, and OpenSSL verifies it; one byte more does not.
    func testEdDSA_signsA16KiBMessage_andOpenSSLVerifiesIt() throws {
        try startDaemon()
        let alice = try register("alice", label: "laptop")
        let message = Data((0..<16384).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        let signature = try XCTUnwrap(Data(hex: try pykcs11Sign(message)))
        XCTAssertEqual(signature.count, 64)
        XCTAssertTrue(try opensslVerifies(publicKey: alice.publicKey, signature: signature, message: message))
        XCTAssertEqual(try pykcs11Sign(message + Data([0])), "CKR_DATA_LEN_RANGE", "more than 16 KiB is refused before sending")
        XCTAssertEqual(try listed(alice.keyId)["failedAttempts"] as? Int, 0)
    }
}
