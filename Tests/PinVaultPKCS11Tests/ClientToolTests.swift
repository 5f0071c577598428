import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// The module through the programs people use: OpenSC's pkcs11-tool, GnuTLS's
/// p11tool, p11-kit's registry and proxy; every signature checked by OpenSSL.
final class ClientToolTests: PKCS11TestCase {
    func testPkcs11Tool_listsOneTokenPerAuthenticateCredential_andItsPublicKey() throws {
        try startDaemon()
        let alice = try register("alice", label: "laptop")
        let bob = try register("bob")
        try register("carol", label: "ssh", purpose: "ssh")
        try register("dave", label: "login", purpose: "login")

        let slots = try pkcs11Tool(["-L"])
        XCTAssertEqual(slots.status, 0, slots.output)
        XCTAssertTrue(slots.output.contains("token label        : alice (laptop)"), slots.output)
        XCTAssertTrue(slots.output.contains("token label        : bob\n"), slots.output)
        XCTAssertFalse(slots.output.contains("carol"), "an ssh key is the agents', never a PKCS#11 token:\n\(slots.output)")
        XCTAssertFalse(slots.output.contains("dave"), "a login key is pam_pinvault's:\n\(slots.output)")
        XCTAssertTrue(slots.output.contains("serial num         : \(alice.keyId.prefix(16))"), slots.output)
        XCTAssertTrue(slots.output.contains("serial num         : \(bob.keyId.prefix(16))"), slots.output)
        XCTAssertTrue(slots.output.contains("token flags        : login required, token initialized, PIN initialized"), slots.output)

        let objects = try pkcs11Tool(["--token-label", "alice (laptop)", "-O"])
        XCTAssertEqual(objects.status, 0, objects.output)
        XCTAssertTrue(objects.output.contains("Public Key Object; EC_EDWARDS"), objects.output)
        XCTAssertTrue(objects.output.contains("EC_POINT:   0420" + alice.publicKey.hex), objects.output)
        XCTAssertTrue(objects.output.contains("EC_PARAMS:  06032b6570 (OID 1.3.101.112)"), objects.output)
        XCTAssertTrue(objects.output.contains("ID:         \(alice.keyId)"), objects.output)
        XCTAssertFalse(objects.output.contains("Private Key Object"), "the private key is there only once logged in:\n\(objects.output)")

        // The test PIN of a throwaway credential on argv: pkcs11-tool takes it nowhere else.
        let loggedIn = try pkcs11Tool(["--token-label", "alice (laptop)", "--login", "--pin", pin, "-O"])
        XCTAssertEqual(loggedIn.status, 0, loggedIn.output)
        XCTAssertTrue(loggedIn.output.contains("Private Key Object; EC_EDWARDS"), loggedIn.output)
        XCTAssertTrue(loggedIn.output.contains("Access:     sensitive, always sensitive, never extractable, local"), loggedIn.output)
        XCTAssertTrue(loggedIn.output.contains("Allowed mechanisms: EDDSA"), loggedIn.output)
    }

    func testPkcs11Tool_signsEdDSA_andOpenSSLVerifiesTheSignature() throws {
        try startDaemon()
        let alice = try register("alice", label: "laptop")
        let message = Data("a relying party's challenge, signed through PKCS#11".utf8)
        let input = try file("data", message)
        let output = home.path + "/signature"
        // The test PIN of a throwaway credential on argv: pkcs11-tool takes it nowhere else.
        let signed = try pkcs11Tool(["--token-label", "alice (laptop)", "--login", "--pin", pin, "--sign", "-m", "EDDSA",
                                     "--id", alice.keyId, "-i", input, "-o", output])
        XCTAssertEqual(signed.status, 0, signed.output)
        let signature = try Data(contentsOf: URL(fileURLWithPath: output))
        XCTAssertEqual(signature.count, 64)
        XCTAssertTrue(try opensslVerifies(publicKey: alice.publicKey, signature: signature, message: message))
        XCTAssertFalse(try opensslVerifies(publicKey: alice.publicKey, signature: signature, message: message + Data([0])),
                       "OpenSSL must refuse the signature over other data, or the check above proves nothing")
        XCTAssertTrue(try IndependentEd25519.verify(publicKey: alice.publicKey, signature: signature, message: message))

        // C_Logout (pkcs11-tool's end) locked the key again: Sign without a login is NotUnlocked.
        let client = try daemon.connect()
        defer { client.close() }
        let sign = try client.vault("Sign", ["keyId": alice.keyId, "challenge": message.base64EncodedString()])
        XCTAssertEqual(sign.error, "io.pinvault.Vault.NotUnlocked", "\(sign)")
    }

    /// C_Sign's own answers, through PyKCS11.
    func testSign_refusesWhatPinVaultNeverSigns_withoutCountingAnything() throws {
        try startDaemon()
        let alice = try register("alice")
        // An SSHSIG preimage: the daemon's shape rule, InvalidParameter(challenge), is CKR_DATA_INVALID.
        let sshsig = Data("SSHSIG".utf8) + Data([0, 0, 0, 3]) + Data("git".utf8) + Data(repeating: 0x78, count: 40)
        XCTAssertEqual(try pykcs11Sign(sshsig), "CKR_DATA_INVALID")
        // Sign takes 1 byte to 16 KiB: more is refused before anything is sent.
        XCTAssertEqual(try pykcs11Sign(Data(repeating: 0x61, count: 16385)), "CKR_DATA_LEN_RANGE")
        XCTAssertEqual(try pykcs11Sign(Data(repeating: 0x61, count: 1025)).count, 128, "a signature, in hex")
        XCTAssertEqual(try listed(alice.keyId)["failedAttempts"] as? Int, 0)
    }

    func testP11tool_listsTheTokenAndItsKeys_andTestSigns() throws {
        try startDaemon()
        try register("alice", label: "laptop")
        let token = "pkcs11:token=alice%20%28laptop%29"
        let tokens = try run("/usr/bin/p11tool", ["--provider", modules.pkcs11Module, "--list-tokens"])
        XCTAssertEqual(tokens.status, 0, tokens.output)
        XCTAssertTrue(tokens.output.contains("Label: alice (laptop)"), tokens.output)
        XCTAssertTrue(tokens.output.contains("Manufacturer: PinVault"), tokens.output)
        // GnuTLS reads the PIN from GNUTLS_PIN (or its prompt): the throwaway test PIN.
        let pinEnvironment = ["GNUTLS_PIN": pin]
        let all = try run("/usr/bin/p11tool", ["--provider", modules.pkcs11Module, "--list-all", "--login", token],
                          environment: pinEnvironment)
        XCTAssertEqual(all.status, 0, all.output)
        XCTAssertTrue(all.output.contains("Type: Public key (EdDSA (Ed25519))"), all.output)
        XCTAssertTrue(all.output.contains("Type: Private key (EdDSA (Ed25519))"), all.output)
        // Ed25519 hashes inside the signature: GnuTLS wants SHA512 named for it.
        let tested = try run("/usr/bin/p11tool", ["--provider", modules.pkcs11Module, "--test-sign", "--hash", "SHA512", "--login",
                                                  token + ";object=alice%20%28laptop%29;type=private"],
                             environment: pinEnvironment)
        XCTAssertEqual(tested.status, 0, tested.output)
        XCTAssertTrue(tested.output.contains("Signing using EdDSA-Ed25519... ok"), tested.output)
        XCTAssertTrue(tested.output.contains("Verifying against public key in the token... ok"), tested.output)
    }

    /// p11-kit finds the module through its registry (here the user's, in a private
    /// HOME; the package installs /usr/share/p11-kit/modules/pinvault.module), and
    /// p11-kit-proxy.so passes CKM_EDDSA through to it.
    func testP11Kit_listsTheModule_andItsProxySignsEdDSA() throws {
        try startDaemon()
        let alice = try register("alice", label: "laptop")
        // p11-kit reads no user configuration as root: there the system's registry, for this test only.
        let registry = geteuid() == 0 ? "/etc/pkcs11/modules" : home.path + "/.config/pkcs11/modules"
        try FileManager.default.createDirectory(atPath: registry, withIntermediateDirectories: true)
        let shipped = try String(contentsOfFile: TestDaemon.repositoryRoot + "/pkcs11/pinvault.module", encoding: .utf8)
        let config = shipped.replacingOccurrences(of: "module: pinvault-pkcs11.so", with: "module: \(modules.pkcs11Module)")
        XCTAssertNotEqual(config, shipped, "the shipped pinvault.module names no module: pinvault-pkcs11.so")
        let entry = registry + "/pinvault-test-\(getpid()).module"
        try config.write(toFile: entry, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: entry) }

        let listed = try run("/usr/bin/p11-kit", ["list-modules"])
        XCTAssertEqual(listed.status, 0, listed.output)
        XCTAssertTrue(listed.output.contains("pinvault-test-\(getpid()): \(modules.pkcs11Module)"), listed.output)
        XCTAssertTrue(listed.output.contains("library-manufacturer: PinVault"), listed.output)
        XCTAssertTrue(listed.output.contains("token: alice (laptop)"), listed.output)

        let proxy = "/usr/lib/\(try multiarch())/p11-kit-proxy.so"
        let message = Data("through p11-kit-proxy.so".utf8)
        let output = home.path + "/signature"
        // The test PIN of a throwaway credential on argv: pkcs11-tool takes it nowhere else.
        let signed = try pkcs11Tool(["--token-label", "alice (laptop)", "--login", "--pin", pin, "--sign", "-m", "EDDSA",
                                     "--id", alice.keyId, "-i", try file("data", message), "-o", output], module: proxy)
        XCTAssertEqual(signed.status, 0, signed.output)
        XCTAssertTrue(try opensslVerifies(publicKey: alice.publicKey, signature: try Data(contentsOf: URL(fileURLWithPath: output)),
                                          message: message))
    }

    private func multiarch() throws -> String {
        let result = try Subprocess.run("/usr/bin/dpkg-architecture", ["-qDEB_HOST_MULTIARCH"])
        let value = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        guard result.status == 0, !value.isEmpty else { throw TestKitError("dpkg-architecture: \(result)") }
        return value
    }
}
