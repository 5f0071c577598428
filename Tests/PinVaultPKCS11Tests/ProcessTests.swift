import Foundation
import PinVaultTestKit
import XCTest

/// PyKCS11 in several processes: a login is the uid's unlock session in pinvaultd,
/// so two programs share it (docs/PKCS11.md); a forked child must initialize again.
final class ProcessTests: PKCS11TestCase {
    func testTwoProcesses_signOnOneToken_andOnesFinalizeEndsTheUidsLogin() throws {
        try startDaemon()
        let alice = try register("alice", label: "laptop")
        let out = try python("two_processes.py", [modules.pkcs11Module, "alice (laptop)"])
        let second = out["second"] as? [String: Any] ?? [:]
        XCTAssertEqual(out["first sign"] as? String, "CKR_OK", "\(out)")
        XCTAssertEqual(second["second sign"] as? String, "CKR_OK", "\(out)")
        // The second process's C_Finalize locked the key: the first is told, logs in again, signs.
        XCTAssertEqual(out["first sign after the second finalized"] as? String, "CKR_USER_NOT_LOGGED_IN", "\(out)")
        XCTAssertEqual(out["first login again"] as? String, "CKR_OK", "\(out)")
        XCTAssertEqual(out["first sign again"] as? String, "CKR_OK", "\(out)")
        for (key, message) in [("first signature", "first process"), ("first signature again", "first process again")] {
            XCTAssertTrue(try opensslVerifies(publicKey: alice.publicKey, signature: Data(hex: out[key] as? String ?? "") ?? Data(),
                                              message: Data(message.utf8)), key)
        }
        XCTAssertTrue(try opensslVerifies(publicKey: alice.publicKey,
                                          signature: Data(hex: second["second signature"] as? String ?? "") ?? Data(),
                                          message: Data("second process".utf8)))
        // Its exit closed its connection, which ended the session it was bound to.
        XCTAssertFalse(try listed(alice.keyId)["unlockedUntil"] is String, "a login outlived its process")
    }

    func testAForkedChild_mustInitializeAgain_andItsFinalizeLeavesTheParentLoggedIn() throws {
        try startDaemon()
        let alice = try register("alice")
        let out = try python("fork.py", [modules.pkcs11Module, "alice"])
        let child = out["child"] as? [String: Any] ?? [:]
        XCTAssertEqual(child["C_GetSlotList before C_Initialize"] as? String, "CKR_CRYPTOKI_NOT_INITIALIZED", "\(out)")
        XCTAssertEqual(child["C_Initialize"] as? String, "CKR_OK", "\(out)")
        XCTAssertEqual(child["tokens"] as? Int, 1, "\(out)")
        XCTAssertEqual(child["C_Finalize"] as? String, "CKR_OK", "\(out)")
        XCTAssertEqual(out["parent sign after the child"] as? String, "CKR_OK", "\(out)")
        XCTAssertTrue(try opensslVerifies(publicKey: alice.publicKey, signature: Data(hex: out["signature"] as? String ?? "") ?? Data(),
                                          message: Data("after the fork".utf8)))
    }
}
