import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// `pinvault-pkcs11.so` as `make stage` builds it, driven by the real PKCS#11 clients
/// Debian ships (OpenSC's pkcs11-tool, GnuTLS's p11tool, p11-kit, PyKCS11) against a
/// real pinvaultd on a private socket, with SoftHSM2 as the reference module.
///
/// The tools run as this process's uid, as the daemon does: the module trusts a
/// daemon of its own uid, root or the pinvault user. PINs reach the tools on stdin,
/// except pkcs11-tool's and p11tool's, which take them only from argv or the
/// environment: there they are the throwaway test PIN of a test credential.
class PKCS11TestCase: XCTestCase {
    var daemon: TestDaemon!
    var modules: StagedCModules!
    /// A private HOME for p11-kit's user configuration (`~/.config/pkcs11/modules`).
    var home: TemporaryDirectory!

    /// PINs the test policy accepts.
    let pin = "258046"
    let wrongPin = "370591"

    static let tools = [
        "/usr/bin/pkcs11-tool", "/usr/bin/p11tool", "/usr/bin/p11-kit", "/usr/bin/openssl", "/usr/bin/softhsm2-util",
        "/usr/lib/softhsm/libsofthsm2.so", "/usr/bin/python3",
    ]

    override class func tearDown() {
        StagedCModules.removeShared()
        super.tearDown()
    }

    override func setUpWithError() throws {
        for tool in Self.tools where !FileManager.default.fileExists(atPath: tool) {
            XCTFail("\(tool) is missing: `make test` installs it (TEST_PACKAGES: opensc, gnutls-bin, p11-kit, softhsm2, python3-pykcs11)")
            throw XCTSkip("\(tool) missing")
        }
        let pykcs11 = try Subprocess.run("/usr/bin/python3", ["-c", "import PyKCS11"])
        guard pykcs11.status == 0 else {
            XCTFail("python3-pykcs11 is missing: `make test` installs it")
            throw XCTSkip("PyKCS11 missing")
        }
        modules = try StagedCModules.shared()
        home = try TemporaryDirectory()
    }

    override func tearDownWithError() throws {
        if let daemon, daemon.process != nil {
            XCTAssertEqual(try daemon.stop(), 0, "pinvaultd did not exit cleanly:\n\(daemon.log)")
        }
        daemon = nil
    }

    /// Starts pinvaultd with `overrides` over the test kit's configuration.
    func startDaemon(_ overrides: [String: [String: String]] = [:]) throws {
        daemon = try TestDaemon(overrides: overrides)
        try daemon.start()
    }

    /// Registers a credential (Ed25519 unless `algorithm` says); returns its keyId and raw public key.
    @discardableResult
    func register(_ user: String, label: String? = nil, purpose: String = "authenticate", algorithm: String? = nil) throws
        -> (keyId: String, publicKey: Data)
    {
        let client = try daemon.connect()
        defer { client.close() }
        let credential = try client.register(user: user, pin: pin, label: label, purpose: purpose, algorithm: algorithm)
        guard let keyId = credential["keyId"] as? String, let encoded = credential["publicKey"] as? String,
              let publicKey = Data(base64Encoded: encoded) else { throw TestKitError("no keyId in \(credential)") }
        return (keyId, publicKey)
    }

    /// The credential `keyId` as the daemon lists it now.
    func listed(_ keyId: String) throws -> [String: Any] {
        let client = try daemon.connect()
        defer { client.close() }
        return try client.credential(keyId: keyId)
    }

    /// The tools' environment: the daemon's socket, a private HOME, nothing of ours beyond.
    var environment: [String: String] {
        var environment = ChildProcess.inheritedEnvironment()
        environment["PINVAULT_SOCKET"] = daemon.socketPath
        environment["HOME"] = home.path
        environment["XDG_CONFIG_HOME"] = home.path + "/.config"
        return environment
    }

    /// Runs `tool` with `arguments` and `input`; stdout and stderr together.
    func run(_ tool: String, _ arguments: [String], input: String = "", environment extra: [String: String] = [:]) throws
        -> (status: Int32, output: String)
    {
        let result = try Subprocess.run(tool, arguments, input: Data(input.utf8),
                                        environment: environment.merging(extra) { $1 }, timeout: 120)
        return (result.status, result.standardOutput + result.standardError)
    }

    /// pkcs11-tool on `module` (default: PinVault's).
    func pkcs11Tool(_ arguments: [String], module: String? = nil) throws -> (status: Int32, output: String) {
        try run("/usr/bin/pkcs11-tool", ["--module", module ?? modules.pkcs11Module] + arguments)
    }

    /// A PyKCS11 script of pkcs11/tests, the PIN on stdin; its JSON output.
    func python(_ script: String, _ arguments: [String], pin: String? = nil, environment extra: [String: String] = [:]) throws
        -> [String: Any]
    {
        let result = try run("/usr/bin/python3", [TestDaemon.repositoryRoot + "/pkcs11/tests/" + script] + arguments,
                             input: (pin ?? self.pin) + "\n", environment: extra)
        guard result.status == 0, let line = result.output.split(separator: "\n").last,
              let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw TestKitError("\(script) failed: \(result.output)")
        }
        return object
    }

    /// `C_Login` and `C_Sign` of `data` with `mechanism` through PyKCS11 on the first
    /// token (pkcs11-tool falls back to C_SignUpdate when C_Sign fails, and reads more
    /// than 1024 bytes in parts): the signature's hex, or the CKR_ name C_Sign answered.
    func pykcs11Sign(_ data: Data, mechanism: String = "CKM_EDDSA", module: String? = nil, environment extra: [String: String] = [:])
        throws -> String
    {
        let result = try run("/usr/bin/python3", ["-c", #"""
            import sys, PyKCS11
            lib = PyKCS11.PyKCS11Lib(); lib.load(sys.argv[1])
            session = lib.openSession(lib.getSlotList(tokenPresent=True)[0])
            session.login(sys.stdin.readline().rstrip("\n"))
            key = session.findObjects([(PyKCS11.CKA_CLASS, PyKCS11.CKO_PRIVATE_KEY)])[0]
            data = open(sys.argv[2], "rb").read()
            try:
                print(bytes(session.sign(key, data, PyKCS11.Mechanism(getattr(PyKCS11, sys.argv[3]), None))).hex())
            except PyKCS11.PyKCS11Error as error:
                print(PyKCS11.CKR[error.value])
            """#, module ?? modules.pkcs11Module, try file("to-sign-\(data.count)", data), mechanism], input: pin + "\n",
            environment: extra)
        XCTAssertEqual(result.status, 0, result.output)
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A file in the private HOME with `contents`.
    func file(_ name: String, _ contents: Data) throws -> String {
        let path = home.path + "/" + name
        try contents.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The PEM SubjectPublicKeyInfo of a raw Ed25519 key (RFC 8410), for OpenSSL.
    func publicKeyPEM(_ publicKey: Data) throws -> String {
        let spki = Data([0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00]) + publicKey
        return try file("key-\(publicKey.prefix(4).map { String(format: "%02x", $0) }.joined()).pem",
                        Data("-----BEGIN PUBLIC KEY-----\n\(spki.base64EncodedString())\n-----END PUBLIC KEY-----\n".utf8))
    }

    /// The PEM SubjectPublicKeyInfo of a P-256 point (RFC 5480), for OpenSSL.
    func p256PublicKeyPEM(_ point: Data) throws -> String {
        let spki = Data([0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a,
                         0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00]) + point
        return try file("p256-\(point.dropFirst().prefix(4).hex).pem",
                        Data("-----BEGIN PUBLIC KEY-----\n\(spki.base64EncodedString())\n-----END PUBLIC KEY-----\n".utf8))
    }

    /// Whether OpenSSL verifies the DER ECDSA `signature` over SHA-256 of `message` with the P-256 `point`.
    func opensslVerifiesECDSA(point: Data, signature: Data, message: Data) throws -> Bool {
        let key = try p256PublicKeyPEM(point)
        let data = try file("ecdsa-message", message)
        let sig = try file("ecdsa-signature", signature)
        let result = try run("/usr/bin/openssl", ["dgst", "-sha256", "-verify", key, "-signature", sig, data])
        return result.status == 0 && result.output.contains("Verified OK")
    }

    /// Whether OpenSSL verifies `signature` over `message` with `publicKey`.
    func opensslVerifies(publicKey: Data, signature: Data, message: Data) throws -> Bool {
        let key = try publicKeyPEM(publicKey)
        let data = try file("message", message)
        let sig = try file("signature", signature)
        let result = try run("/usr/bin/openssl", ["pkeyutl", "-verify", "-pubin", "-inkey", key, "-rawin", "-in", data, "-sigfile", sig])
        return result.status == 0 && result.output.contains("Signature Verified Successfully")
    }

    /// The token label the module gives a credential.
    func tokenLabel(_ user: String, _ label: String?) -> String {
        label.map { "\(user) (\($0))" } ?? user
    }
}

extension Data {
    init?(hex: String) {
        var bytes = [UInt8]()
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) ?? hex.endIndex
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        self.init(bytes)
    }

    var hex: String { map { String(format: "%02x", $0) }.joined() }
}
