import Foundation
import PinVaultTestKit
import XCTest

/// libpinvault, the PKCS#11 module and the example program built with AddressSanitizer
/// and UBSan (`make stage-sanitized`, every finding fatal), driven by the same clients:
/// the conformance calls, a fork, two processes, and pinvault-sign.
final class SanitizedModuleTests: PKCS11TestCase {
    private var sanitized: TemporaryDirectory!

    override func setUpWithError() throws {
        try super.setUpWithError()
        sanitized = try TemporaryDirectory(mode: 0o755)
        let built = try Subprocess.run(
            "/usr/bin/env", ["make", "-C", TestDaemon.repositoryRoot, "--no-print-directory", "stage-sanitized",
                             "STAGE_DIR=\(sanitized.path)"], timeout: 300)
        XCTAssertEqual(built.status, 0, "\(built)")
    }

    /// libasan first (the module is loaded into an unsanitized python), and libstdc++
    /// beside it, so that PyKCS11's C++ exceptions find the interceptor's real target.
    private var sanitizerEnvironment: [String: String] {
        get throws {
            let runtime = try String(contentsOfFile: sanitized.path + "/asan-runtime", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            return ["LD_PRELOAD": "\(runtime) libstdc++.so.6",
                    // Python's own allocations outlive its exit: leaks are not what this run looks for.
                    "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1", "UBSAN_OPTIONS": "print_stacktrace=1"]
        }
    }

    private func assertClean(_ output: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(output.contains("AddressSanitizer") || output.contains("runtime error"), "\(what):\n\(output)",
                       file: file, line: line)
    }

    func testTheModule_underASanAndUBSan_answersTheConformanceCalls_forks_andServesTwoProcesses() throws {
        try startDaemon()
        let alice = try register("alice", label: "laptop")
        let module = sanitized.path + "/pinvault-pkcs11.so"
        let environment = try sanitizerEnvironment

        let conformance = try python("conformance.py", [module, "alice (laptop)"], environment: environment)
        XCTAssertEqual(conformance["C_Login"] as? String, "CKR_OK")
        XCTAssertEqual(conformance["C_Sign"] as? String, "CKR_OK")
        XCTAssertEqual(conformance["C_Login with a wrong PIN"] as? String, "CKR_PIN_INCORRECT")
        XCTAssertTrue(try opensslVerifies(publicKey: alice.publicKey, signature: Data(hex: conformance["signature"] as? String ?? "") ?? Data(),
                                          message: Data("conformance: the same calls to every module".utf8)))

        let fork = try python("fork.py", [module, "alice (laptop)"], environment: environment)
        XCTAssertEqual(fork["parent sign after the child"] as? String, "CKR_OK", "\(fork)")
        let two = try python("two_processes.py", [module, "alice (laptop)"], environment: environment)
        XCTAssertEqual(two["first sign again"] as? String, "CKR_OK", "\(two)")

        // pkcs11-tool too, and its every call, through the sanitized module.
        let listed = try run("/usr/bin/pkcs11-tool", ["--module", module, "-L"], environment: environment)
        XCTAssertEqual(listed.status, 0, listed.output)
        assertClean(listed.output, "pkcs11-tool -L")
    }

    /// P-256 through the sanitized code: the module's CKM_ECDSA_SHA256 and CKM_ECDSA (DER
    /// to r || s, libcrypto's verification) and the example program's DER signature.
    func testP256_underASanAndUBSan_signsThroughTheModuleAndTheExample() throws {
        try startDaemon()
        let environment = try sanitizerEnvironment
        // An ssh token alone first: CKM_ECDSA over a digest, through SignDigest.
        let carol = try register("carol", label: "ssh", purpose: "ssh", algorithm: "p256")
        let digest = Data(repeating: 0x5a, count: 32)
        let raw = try pykcs11Sign(digest, mechanism: "CKM_ECDSA", module: sanitized.path + "/pinvault-pkcs11.so", environment: environment)
        XCTAssertEqual(raw.count, 128, raw)
        assertClean(raw, "PyKCS11 CKM_ECDSA")
        _ = try daemon.connect().succeeding("Wipe", ["user": "carol", "keyId": carol.keyId, "pin": pin])
        let alice = try register("alice", label: "laptop", algorithm: "p256")
        let message = Data("P-256 under the sanitizers".utf8)
        let data = try file("data", message)
        let output = home.path + "/signature.der"
        // The test PIN of a throwaway credential on argv: pkcs11-tool takes it nowhere else.
        let signed = try run("/usr/bin/pkcs11-tool", ["--module", sanitized.path + "/pinvault-pkcs11.so", "--token-label", "alice (laptop)",
                                                      "--login", "--pin", pin, "--sign", "-m", "ECDSA-SHA256", "--signature-format",
                                                      "openssl", "-i", data, "-o", output], environment: environment)
        XCTAssertEqual(signed.status, 0, signed.output)
        assertClean(signed.output, "pkcs11-tool --sign -m ECDSA-SHA256")
        XCTAssertTrue(try opensslVerifiesECDSA(point: alice.publicKey, signature: try Data(contentsOf: URL(fileURLWithPath: output)),
                                               message: message))

        let example = home.path + "/example.der"
        let exampled = try Subprocess.run("/bin/sh", ["-c", "exec \"$0\" \"$1\" \"$2\" \"$3\" > \"$4\"", sanitized.path + "/pinvault-sign",
                                                      "alice", alice.keyId, data, example],
                                          input: Data((pin + "\n").utf8), environment: self.environment)
        XCTAssertEqual(exampled.status, 0, "\(exampled)")
        assertClean(exampled.standardError, "pinvault-sign with a P-256 key")
        XCTAssertTrue(try opensslVerifiesECDSA(point: alice.publicKey, signature: try Data(contentsOf: URL(fileURLWithPath: example)),
                                               message: message), "the example's P-256 signature is DER that OpenSSL verifies")
    }

    func testTheExampleProgram_signs_underASanAndUBSan_andTellsAWrongPin() throws {
        try startDaemon()
        let alice = try register("alice")
        let message = Data("signed by libpinvault's example".utf8)
        let data = try file("data", message)
        let signer = sanitized.path + "/pinvault-sign"
        let output = home.path + "/signature.bin"
        // The signature is binary: the shell puts standard output in a file.
        let signed = try Subprocess.run("/bin/sh", ["-c", "exec \"$0\" \"$1\" \"$2\" \"$3\" > \"$4\"", signer, "alice", alice.keyId,
                                                    data, output], input: Data((pin + "\n").utf8), environment: environment)
        XCTAssertEqual(signed.status, 0, "\(signed)")
        assertClean(signed.standardError, "pinvault-sign")
        XCTAssertTrue(try opensslVerifies(publicKey: alice.publicKey, signature: try Data(contentsOf: URL(fileURLWithPath: output)),
                                          message: message), "pinvault-sign's output is not a signature OpenSSL verifies")

        let wrong = try Subprocess.run(signer, ["alice", alice.keyId, data], input: Data((wrongPin + "\n").utf8), environment: environment)
        XCTAssertEqual(wrong.status, 1)
        XCTAssertTrue(wrong.standardError.contains("wrong PIN (4 attempts left)"), wrong.standardError)
        assertClean(wrong.standardError, "pinvault-sign with a wrong PIN")
        XCTAssertEqual(try listed(alice.keyId)["failedAttempts"] as? Int, 1)
        // It closed its connection: the bound session is gone.
        XCTAssertFalse(try listed(alice.keyId)["unlockedUntil"] is String)
    }
}
