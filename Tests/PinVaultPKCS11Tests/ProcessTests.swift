import Foundation
import Glibc
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

    /// A restart of pinvaultd (or its idle timeout) closes the module's connection: the
    /// next call connects again instead of answering CKR_DEVICE_ERROR, and the login that
    /// ended with the connection is reported as such, never signed with.
    func testADaemonRestart_underALoggedInProgram_endsTheLogin_andTheModuleConnectsAgain() throws {
        try startDaemon()
        let alice = try register("alice")
        let directory = try TemporaryDirectory()
        var pipe: [Int32] = [-1, -1]
        XCTAssertEqual(Glibc.pipe(&pipe), 0)
        let pinLine = Array((pin + "\n").utf8)
        XCTAssertEqual(write(pipe[1], pinLine, pinLine.count), pinLine.count)
        close(pipe[1])
        let log = directory.path + "/reconnect.log"
        let script = try ChildProcess(
            path: "/usr/bin/python3",
            arguments: [TestDaemon.repositoryRoot + "/pkcs11/tests/reconnect.py", modules.pkcs11Module, "alice", directory.path],
            environment: environment, logPath: log, descriptors: [pipe[0]: 0])
        close(pipe[0])
        // Waits for the script to have logged in and signed: a condition, not a deadline to beat.
        var paused = false
        for _ in 0..<6000 where script.isRunning {
            paused = FileManager.default.fileExists(atPath: directory.path + "/paused")
            if paused { break }
            usleep(50_000)
        }
        let before = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        XCTAssertTrue(paused, "reconnect.py never paused: \(before)")
        if paused {
            XCTAssertEqual(try daemon.stop(), 0, daemon.log)
            try daemon.start()
        }
        FileManager.default.createFile(atPath: directory.path + "/resume", contents: Data())
        XCTAssertEqual(script.waitForExit(timeout: 300), 0)
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        let line = output.split(separator: "\n").last.map(String.init) ?? ""
        let out = try XCTUnwrap(try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], output)
        XCTAssertEqual(out["login"] as? String, "CKR_OK", "\(out)")
        XCTAssertEqual(out["sign"] as? String, "CKR_OK", "\(out)")
        XCTAssertEqual(out["token info after the restart"] as? String, "CKR_OK", "\(out)")
        XCTAssertEqual(out["sign after the restart"] as? String, "CKR_USER_NOT_LOGGED_IN", "\(out)")
        XCTAssertEqual(out["login again"] as? String, "CKR_OK", "\(out)")
        XCTAssertEqual(out["sign again"] as? String, "CKR_OK", "\(out)")
        XCTAssertTrue(try opensslVerifies(publicKey: alice.publicKey,
                                          signature: Data(hex: out["signature again"] as? String ?? "") ?? Data(),
                                          message: Data("after the restart".utf8)))
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
