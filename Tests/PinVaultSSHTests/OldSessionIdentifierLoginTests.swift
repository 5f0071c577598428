import Foundation
import Glibc
import PinVaultCrypto
import PinVaultSSHProtocol
import PinVaultTestKit
import XCTest

/// The third review's attack on the old login layout, end to end: sshd still verifies,
/// for a client whose banner its compatibility table marks SSH_OLD_SESSIONID ("3.0
/// SecureCRT*"), a userauth signature over the session identifier with no length before
/// it. paramiko, announcing itself as SecureCRT 3.0 and signing that layout, asks a
/// scripted agent whose only signer is pinvaultd's Authenticate — an app passing a
/// relying party's challenge, its owner typing the PIN. Before the fix Authenticate
/// signed it and paramiko logged in as the key's user with a legacy key; now it is
/// refused before the PIN, for every size of exchange hash and for every purpose.
final class OldSessionIdentifierLoginTests: XCTestCase {
    private var fixture: OpenSSHFixture!
    private let legacyUser = "legacy-app"

    /// The key exchanges paramiko and sshd share, by the size of their hash: the
    /// session identifier is that hash (SHA-1's needs sshd's consent).
    private let exchanges: [(name: String, identifierBytes: Int)] = [
        ("diffie-hellman-group14-sha1", 20), ("curve25519-sha256@libssh.org", 32),
        ("ecdh-sha2-nistp384", 48), ("diffie-hellman-group16-sha512", 64),
    ]

    override func setUpWithError() throws {
        try OpenSSHFixture.requirements(of: self)
        guard FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/paramiko/__init__.py") else {
            try RootOnlySuites.skip(self, "needs python3-paramiko (make test-deps installs it)") { XCTSkip($0) }
        }
        fixture = try OpenSSHFixture(serverSettings: ["KexAlgorithms": "+diffie-hellman-group14-sha1"])
    }

    override func tearDownWithError() throws {
        if let daemon = fixture?.daemon, daemon.process != nil {
            XCTAssertEqual(try daemon.stop(), 0, "pinvaultd did not exit cleanly:\n\(daemon.log)")
        }
        fixture = nil
    }

    /// A credential of root's that the test user's authorized_keys trusts.
    private struct Key {
        let name: String
        let keyId: String
        let publicKey: [UInt8]
    }

    /// paramiko logs in to the fixture's sshd as its user, over `exchange`, with the
    /// first key of the agent at `agent`, signing the old layout. What it printed.
    private func paramikoLogin(exchange: String, agent: String) throws -> RunResult {
        try Spawned.run(
            ["/usr/bin/python3", "-c", Self.script, "\(fixture.server.port)", fixture.user.name, exchange],
            environment: ["SSH_AUTH_SOCK": agent, "PATH": "/usr/bin:/bin"], timeout: 60
        )
    }

    /// An agent offering `key` that signs through Authenticate with its PIN.
    private func authenticatingProxy(_ key: Key, answers: AnswerLog) throws -> ScriptedSSHAgent {
        let (socket, user, pin, keyId) = (fixture.daemon.socketPath, key.name, fixture.pin, key.keyId)
        return try ScriptedSSHAgent(
            socketPath: fixture.stage.path + "/proxy-\(UInt32.random(in: 0...UInt32.max)).sock",
            identities: [.init(keyBlob: SSHKey(algorithm: .ed25519, publicKey: key.publicKey).blob, comment: key.name)]
        ) { _, data in
            guard let client = try? VarlinkClient(socketPath: socket),
                  let reply = try? client.vault("Authenticate", [
                      "user": user, "keyId": keyId, "pin": pin, "challenge": Data(data).base64EncodedString(),
                  ])
            else { return nil }
            answers.append((reply.error ?? "signed") + (reply.string("parameter").map { "(\($0))" } ?? ""))
            return reply.string("signature").flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) }
        }
    }

    /// A legacy credential (written as the second release did) and an `authenticate`
    /// one, both of root's, both trusted by sshd for the test user.
    private func keys() throws -> [Key] {
        XCTAssertEqual(try fixture.daemon.stop(), 0, fixture.daemon.log)
        let legacyId = try LegacyCredentials.add(to: fixture.daemon, user: legacyUser, label: "legacy", pin: fixture.pin)
        try fixture.daemon.start()
        let root = try fixture.daemon.connect()
        let legacy = try XCTUnwrap(try root.list(user: legacyUser).first)
        let app = try root.register(user: "app", pin: fixture.pin, purpose: "authenticate")
        let keys = try [(legacyUser, legacy), ("app", app)].map { (name: String, credential: [String: Any]) in
            Key(name: name, keyId: try XCTUnwrap(credential["keyId"] as? String),
                publicKey: [UInt8](try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(credential["publicKey"] as? String)))))
        }
        XCTAssertEqual(keys.first?.keyId, legacyId)
        try fixture.authorize(keys.map { SSHKey(algorithm: .ed25519, publicKey: $0.publicKey).line(comment: $0.name) })
        return keys
    }

    func testTheOldLayout_throughAuthenticate_logsInWithNoKey_forAnySessionIdentifierSize() throws {
        let keys = try keys()
        // The control: the same paramiko, signing with a key the scripted agent holds,
        // logs in over every exchange: sshd really verifies the old layout.
        let control = try SigningKeyPair(algorithm: .ed25519, seed: try KeyAlgorithm.generateSeed())
        try fixture.authorize(
            keys.map { SSHKey(algorithm: .ed25519, publicKey: $0.publicKey).line(comment: $0.name) }
                + [SSHKey(algorithm: .ed25519, publicKey: control.publicKey).line(comment: "control")]
        )
        let controlAgent = try ScriptedSSHAgent(
            socketPath: fixture.stage.path + "/control.sock", identities: [.init(keyBlob: SSHKey(algorithm: .ed25519, publicKey: control.publicKey).blob, comment: "control")]
        ) { _, data in data.withUnsafeBytes { try? control.sign($0) } }
        for exchange in exchanges {
            let login = try paramikoLogin(exchange: exchange.name, agent: controlAgent.socketPath)
            XCTAssertEqual(login.standardOutput, "session identifier \(exchange.identifierBytes)\nold-layout-login-ok\n",
                           "\(exchange.name): the control did not log in: \(login)\n\(fixture.server.log)")
        }

        for key in keys {
            for exchange in exchanges {
                let answers = AnswerLog()
                let proxy = try authenticatingProxy(key, answers: answers)
                let login = try paramikoLogin(exchange: exchange.name, agent: proxy.socketPath)
                XCTAssertFalse(login.standardOutput.contains("old-layout-login-ok"),
                               "\(key.name), \(exchange.name): logged in through Authenticate: \(login)")
                XCTAssertTrue(login.standardOutput.contains("refused"), "\(key.name), \(exchange.name): \(login)")
                // What paramiko asked to sign is the old layout for this key: with the
                // identifier's length put in front, it is an exact userauth request.
                let asked = try XCTUnwrap(proxy.signed.first, "\(key.name), \(exchange.name): paramiko never asked the agent")
                let size = exchange.identifierBytes
                XCTAssertEqual(asked.count > size ? asked[size] : nil, 50, "\(key.name), \(exchange.name): \(asked)")
                let lengthPrefixed = Self.uint32(size) + asked
                guard case .userauth(let request) = lengthPrefixed.withUnsafeBytes(SSHSignedData.parse) else {
                    return XCTFail("\(key.name), \(exchange.name): not the old layout: \(asked)")
                }
                XCTAssertTrue(request.names(keyBlob: SSHKey(algorithm: .ed25519, publicKey: key.publicKey).blob, algorithm: "ssh-ed25519"))
                XCTAssertEqual(request.user, Array(fixture.user.name.utf8))
                // Authenticate refused it before the PIN.
                XCTAssertEqual(answers.all, ["org.varlink.service.InvalidParameter(challenge)"], "\(key.name), \(exchange.name)")
                proxy.stop()
            }
        }
        // Sign, with the keys unlocked, refuses the old layout too.
        let root = try fixture.daemon.connect()
        for key in keys {
            _ = try root.succeeding("Unlock", ["user": key.name, "keyId": key.keyId, "pin": fixture.pin, "ttlSeconds": 60])
            let request = [UInt8](repeating: 0x5a, count: 32) + [50]
                + Self.sshString(Array(fixture.user.name.utf8)) + Self.sshString(Array("ssh-connection".utf8))
                + Self.sshString(Array("publickey".utf8)) + [1] + Self.sshString(Array("ssh-ed25519".utf8))
                + Self.sshString(SSHKey(algorithm: .ed25519, publicKey: key.publicKey).blob)
            let refused = try root.vault("Sign", ["keyId": key.keyId, "challenge": Data(request).base64EncodedString()])
            XCTAssertEqual(refused.error, "org.varlink.service.InvalidParameter", "\(key.name): \(refused)")
            XCTAssertEqual(refused.string("parameter"), "challenge")
        }
        for user in [legacyUser, "app"] {
            let credential = try XCTUnwrap(try root.list(user: user).first)
            XCTAssertEqual((credential["failedAttempts"] as? NSNumber)?.intValue, 0, "\(user): nothing counted")
        }
    }

    private static func sshString(_ bytes: [UInt8]) -> [UInt8] { uint32(bytes.count) + bytes }

    private static func uint32(_ value: Int) -> [UInt8] {
        [UInt8(value >> 24 & 0xff), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }

    /// paramiko as SecureCRT 3.0: its banner, one key exchange, and the signed data laid
    /// out as sshd expects from such a client (the session identifier bare). Prints the
    /// identifier's size, then the remote command's output or "refused".
    private static let script = #"""
import socket, sys, paramiko
from paramiko.auth_handler import AuthHandler
from paramiko.common import cMSG_USERAUTH_REQUEST
from paramiko.message import Message

port, user, exchange = int(sys.argv[1]), sys.argv[2], sys.argv[3]

def old_session_blob(self, key, service, username, algorithm):
    m = Message()
    m.add_bytes(self.transport.session_id)
    m.add_byte(cMSG_USERAUTH_REQUEST)
    m.add_string(username)
    m.add_string(service)
    m.add_string("publickey")
    m.add_boolean(True)
    m.add_string(algorithm)
    m.add_string(key.asbytes())
    return m.asbytes()

AuthHandler._get_session_blob = old_session_blob
key = paramiko.Agent().get_keys()[0]
transport = paramiko.Transport(socket.create_connection(("127.0.0.1", port), timeout=30))
transport.local_version = "SSH-2.0-3.0 SecureCRT"
transport.get_security_options().kex = (exchange,)
transport.start_client(timeout=30)
print("session identifier", len(transport.session_id), flush=True)
try:
    transport.auth_publickey(user, key)
except paramiko.SSHException:  # the agent's failure, or sshd's
    print("refused")
    sys.exit(0)
channel = transport.open_session()
channel.exec_command("echo old-layout-login-ok")
sys.stdout.write(channel.makefile().read().decode())
transport.close()
"""#
}
