import Foundation
import PinVaultTestKit
import XCTest

/// P-256 credentials as PKCS#11 tokens (CKK_EC): an authenticate key signs whole
/// messages with CKM_ECDSA_SHA256 (pinvaultd's Sign, shape-checked); every signature
/// checked by OpenSSL; the other kinds of token refuse the other mechanism.
final class P256TokenTests: PKCS11TestCase {
    func testPkcs11Tool_showsTheECKey_andSignsECDSASHA256_whichOpenSSLVerifies() throws {
        try startDaemon()
        let alice = try register("alice", label: "laptop", algorithm: "p256")
        XCTAssertEqual(alice.publicKey.count, 65)
        try register("carol", label: "ed-ssh", purpose: "ssh")

        let slots = try pkcs11Tool(["-L"])
        XCTAssertEqual(slots.status, 0, slots.output)
        XCTAssertTrue(slots.output.contains("token label        : alice (laptop)"), slots.output)
        XCTAssertFalse(slots.output.contains("carol"), "an Ed25519 ssh key cannot sign a hash: no token\n\(slots.output)")

        let objects = try pkcs11Tool(["--token-label", "alice (laptop)", "-O"])
        XCTAssertEqual(objects.status, 0, objects.output)
        XCTAssertTrue(objects.output.contains("Public Key Object; EC  EC_POINT 256 bits"), objects.output)
        XCTAssertTrue(objects.output.contains("EC_POINT:   0441" + alice.publicKey.hex), objects.output)
        XCTAssertTrue(objects.output.contains("EC_PARAMS:  06082a8648ce3d030107"), objects.output)
        XCTAssertTrue(objects.output.contains("ID:         \(alice.keyId)"), objects.output)

        let message = Data("a relying party's challenge, signed with P-256 through PKCS#11".utf8)
        let input = try file("data", message)
        // The test PIN of a throwaway credential on argv: pkcs11-tool takes it nowhere else.
        func sign(_ arguments: [String]) throws -> Data {
            let output = home.path + "/signature"
            let signed = try pkcs11Tool(["--token-label", "alice (laptop)", "--login", "--pin", pin, "--sign", "--id", alice.keyId,
                                         "-i", input, "-o", output] + arguments)
            XCTAssertEqual(signed.status, 0, signed.output)
            return try Data(contentsOf: URL(fileURLWithPath: output))
        }
        XCTAssertEqual(try sign(["-m", "ECDSA-SHA256"]).count, 64, "PKCS#11's r || s")
        let der = try sign(["-m", "ECDSA-SHA256", "--signature-format", "openssl"])
        XCTAssertTrue(try opensslVerifiesECDSA(point: alice.publicKey, signature: der, message: message))
        XCTAssertFalse(try opensslVerifiesECDSA(point: alice.publicKey, signature: der, message: message + Data([0])),
                       "OpenSSL must refuse the signature over other data, or the check above proves nothing")
        XCTAssertEqual(try listed(alice.keyId)["failedAttempts"] as? Int, 0)
    }

    /// Each token signs with its one mechanism; a hash (CKM_ECDSA) never on an authenticate
    /// token, and data shaped as SSH data never through CKM_ECDSA_SHA256.
    func testAnAuthenticateToken_signsNoHash_andNoSSHData() throws {
        try startDaemon()
        try register("alice", label: "laptop", algorithm: "p256")
        let answers = try signingAnswers(#"""
            sign("hash", hashlib.sha256(b"x").digest(), PyKCS11.CKM_ECDSA)
            sign("sshsig", b"SSHSIG\0\0\0\3git" + b"x" * 40, PyKCS11.CKM_ECDSA_SHA256)
            sign("message", b"a challenge", PyKCS11.CKM_ECDSA_SHA256)
            """#)
        XCTAssertEqual(answers["mechanisms"] as? [String], ["CKM_ECDSA_SHA256"], "\(answers)")
        XCTAssertEqual(answers["hash"] as? String, "CKR_MECHANISM_INVALID", "\(answers)")
        XCTAssertEqual(answers["sshsig"] as? String, "CKR_DATA_INVALID", "\(answers)")
        XCTAssertEqual((answers["message"] as? String)?.count, 128, "\(answers)")
    }

    /// An ssh token signs the caller's SHA-256 digest (CKM_ECDSA, pinvaultd's SignDigest)
    /// and nothing else: no whole message, no digest of another size. Its r || s, as DER,
    /// verifies with OpenSSL over the message the digest is of; C_Verify agrees.
    func testAnSSHToken_signsADigestWithCKM_ECDSA_only() throws {
        try startDaemon()
        let carol = try register("carol", label: "pkcs11", purpose: "ssh", algorithm: "p256")
        let message = Data("what ssh hashes before it asks the token".utf8)
        let answers = try signingAnswers(#"""
            public = session.findObjects([(PyKCS11.CKA_CLASS, PyKCS11.CKO_PUBLIC_KEY)])[0]
            digest = hashlib.sha256(sys.argv[2].encode()).digest()
            sign("digest", digest, PyKCS11.CKM_ECDSA)
            sign("short digest", digest[:31], PyKCS11.CKM_ECDSA)
            sign("message", b"a whole message", PyKCS11.CKM_ECDSA_SHA256)
            signature = bytes.fromhex(out["digest"])
            out["verified"] = session.verify(public, digest, signature, PyKCS11.Mechanism(PyKCS11.CKM_ECDSA, None))
            out["verified other"] = session.verify(public, digest[::-1], signature, PyKCS11.Mechanism(PyKCS11.CKM_ECDSA, None))
            """#, String(decoding: message, as: UTF8.self))
        XCTAssertEqual(answers["mechanisms"] as? [String], ["CKM_ECDSA"], "\(answers)")
        XCTAssertEqual(answers["short digest"] as? String, "CKR_DATA_LEN_RANGE", "\(answers)")
        XCTAssertEqual(answers["message"] as? String, "CKR_MECHANISM_INVALID", "\(answers)")
        XCTAssertEqual(answers["verified"] as? Bool, true, "\(answers)")
        XCTAssertEqual(answers["verified other"] as? Bool, false, "\(answers)")
        let raw = try XCTUnwrap(Data(hex: answers["digest"] as? String ?? ""), "\(answers)")
        XCTAssertEqual(raw.count, 64)
        // r || s as DER, for OpenSSL: INTEGERs in their shortest positive form.
        func integer(_ bytes: Data) -> Data {
            var value = Data(bytes.drop { $0 == 0 })
            if value.isEmpty { value = Data([0]) }
            if value[value.startIndex] & 0x80 != 0 { value.insert(0, at: value.startIndex) }
            return Data([0x02, UInt8(value.count)]) + value
        }
        let body = integer(raw.prefix(32)) + integer(raw.suffix(32))
        let der = Data([0x30, UInt8(body.count)]) + body
        XCTAssertTrue(try opensslVerifiesECDSA(point: carol.publicKey, signature: der, message: message))
        XCTAssertFalse(try opensslVerifiesECDSA(point: carol.publicKey, signature: der, message: message + Data([0])))
        XCTAssertEqual(try listed(carol.keyId)["failedAttempts"] as? Int, 0)
    }

    /// OpenSSH 9.2's ssh-keygen -D reads a P-256 ssh token's public key (no login, no PIN).
    func testSshKeygenD_printsTheECDSAKeyOfAnSSHToken() throws {
        try startDaemon()
        let carol = try register("carol", label: "pkcs11", purpose: "ssh", algorithm: "p256")
        try register("alice", label: "laptop")
        let listed = try run("/usr/bin/ssh-keygen", ["-D", modules.pkcs11Module])
        XCTAssertEqual(listed.status, 0, listed.output)
        func string(_ bytes: Data) -> Data { withUnsafeBytes(of: UInt32(bytes.count).bigEndian) { Data($0) } + bytes }
        let blob = string(Data("ecdsa-sha2-nistp256".utf8)) + string(Data("nistp256".utf8)) + string(carol.publicKey)
        XCTAssertTrue(listed.output.contains("ecdsa-sha2-nistp256 " + blob.base64EncodedString() + " carol (pkcs11)"), listed.output)
        // alice's Ed25519 token is there too: OpenSSH 9.2 skips it ("skipping unsupported key type") and goes on.
    }

    /// `body` run by PyKCS11 after it logged in to the first token, with `sign(name, data,
    /// mechanism)` recording a signature's hex or the CKR_ name C_Sign answered in `out`
    /// (and the token's mechanisms under "mechanisms"); `argument` is sys.argv[2]. `out` as JSON.
    private func signingAnswers(_ body: String, _ argument: String = "") throws -> [String: Any] {
        let prelude = #"""
            import hashlib, json, sys, PyKCS11
            lib = PyKCS11.PyKCS11Lib(); lib.load(sys.argv[1])
            slot = lib.getSlotList(tokenPresent=True)[0]
            out = {"mechanisms": list(lib.getMechanismList(slot))}   # PyKCS11 gives the names
            session = lib.openSession(slot)
            session.login(sys.stdin.readline().rstrip("\n"))
            key = session.findObjects([(PyKCS11.CKA_CLASS, PyKCS11.CKO_PRIVATE_KEY)])[0]
            def sign(name, data, mechanism):
                try:
                    out[name] = bytes(session.sign(key, data, PyKCS11.Mechanism(mechanism, None))).hex()
                except PyKCS11.PyKCS11Error as error:
                    out[name] = PyKCS11.CKR[error.value]
            """#
        let script = prelude + "\n" + body + "\nprint(json.dumps(out))\n"
        let result = try run("/usr/bin/python3", ["-c", script, modules.pkcs11Module, argument], input: pin + "\n")
        XCTAssertEqual(result.status, 0, result.output)
        return try XCTUnwrap(result.output.split(separator: "\n").last.flatMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }, result.output)
    }

    func testP11tool_listsTheECKeys() throws {
        try startDaemon()
        try register("alice", label: "laptop", algorithm: "p256")
        let all = try run("/usr/bin/p11tool", ["--provider", modules.pkcs11Module, "--list-all", "--login",
                                               "pkcs11:token=alice%20%28laptop%29"], environment: ["GNUTLS_PIN": pin])
        XCTAssertEqual(all.status, 0, all.output)
        XCTAssertTrue(all.output.contains("Type: Public key (EC/ECDSA-SECP256R1)"), all.output)
        XCTAssertTrue(all.output.contains("Type: Private key (EC/ECDSA-SECP256R1)"), all.output)
    }
}
