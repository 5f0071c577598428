import Foundation
import Glibc
import PinVaultCrypto
import PinVaultDoor
import PinVaultEmbedded
import PinVaultSSHProtocol
import PinVaultTransport
import XCTest

/// The ssh-agent door in process (`InProcessVault.exchangeAgent`): each message type
/// against the engine's real sessions, opened through the Varlink door.
final class SSHAgentFrontDoorTests: XCTestCase {
    private var directory = ""
    private var vault: InProcessVault!
    private let alice = Peer(pid: 4242, uid: 1000, gid: 1000, groups: [], isAdmin: false)
    private let mallory = Peer(pid: 4343, uid: 1001, gid: 1001, groups: [], isAdmin: false)
    private let pin = "258046"

    override func setUpWithError() throws {
        var template = Array("/tmp/pinvault-agent-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        directory = String(cString: made)
        vault = try InProcessVault(stateDirectory: directory)
    }

    override func tearDownWithError() throws {
        vault = nil
        try? FileManager.default.removeItem(atPath: directory)
    }

    // MARK: Helpers

    /// One Varlink call; the reply's parameters as JSON.
    @discardableResult
    private func varlink(_ method: String, _ parameters: [String: Any], as peer: Peer? = nil) throws -> [String: Any] {
        let data = try JSONSerialization.data(withJSONObject: ["method": "io.pinvault.Vault." + method, "parameters": parameters])
        let (outcome, reply) = Array(data).withUnsafeBytes { frame in
            vault.exchange(frame: frame, peer: peer ?? alice) { outcome, reply in (outcome, Array(reply)) }
        }
        guard outcome == .replied else { throw POSIXError(.EPROTO) }
        let object = try JSONSerialization.jsonObject(with: Data(reply)) as? [String: Any] ?? [:]
        if let error = object["error"] { XCTFail("\(method): \(error)") }
        return object["parameters"] as? [String: Any] ?? [:]
    }

    /// Registers and unlocks a credential of `peer` (an ssh key unless told); its raw public key.
    private func unlocked(_ user: String, label: String? = nil, purpose: String = "ssh", as peer: Peer? = nil) throws -> [UInt8] {
        var parameters: [String: Any] = ["user": user, "pin": pin, "purpose": purpose]
        if let label { parameters["label"] = label }
        let credential = try varlink("Register", parameters, as: peer)["credential"] as? [String: Any]
        try varlink("Unlock", ["user": user, "keyId": credential?["keyId"] as? String ?? "", "pin": pin, "ttlSeconds": 60], as: peer)
        return [UInt8](Data(base64Encoded: credential?["publicKey"] as? String ?? "") ?? Data())
    }

    /// One agent message; the whole reply frame.
    private func agent(_ type: UInt8, _ body: [UInt8] = [], as peer: Peer? = nil) -> [UInt8] {
        ([type] + body).withUnsafeBytes { message in vault.exchangeAgent(message: message, peer: peer ?? alice) { Array($0) } }
    }

    private func blob(_ key: [UInt8]) -> [UInt8] { SSHKey(algorithm: .ed25519, publicKey: key).blob }
    private func string(_ bytes: [UInt8]) -> [UInt8] {
        [UInt8(bytes.count >> 24 & 0xff), UInt8(bytes.count >> 16 & 0xff), UInt8(bytes.count >> 8 & 0xff), UInt8(bytes.count & 0xff)] + bytes
    }

    private func signRequest(_ key: [UInt8], _ data: [UInt8], flags: UInt8 = 0) -> [UInt8] {
        string(blob(key)) + string(data) + [0, 0, 0, flags]
    }

    /// What ssh asks an agent to sign to log in with `key` (RFC 4252 §7).
    private func userauth(_ key: [UInt8], hostbound: Bool = false) -> [UInt8] {
        SSHSignedData.UserauthRequest(
            sessionIdentifier: Array(repeating: 7, count: 32), user: Array("alice".utf8), service: Array("ssh-connection".utf8),
            method: Array((hostbound ? "publickey-hostbound-v00@openssh.com" : "publickey").utf8),
            algorithm: Array("ssh-ed25519".utf8), keyBlob: blob(key),
            hostKeyBlob: hostbound ? blob(Array(repeating: 9, count: 32)) : nil
        ).encoded
    }

    /// What `ssh-keygen -Y sign -n git` asks an agent to sign.
    private let sshsig = SSHSignedData.SSHSIGPreimage(
        namespace: Array("git".utf8), reserved: [], hashAlgorithm: Array("sha512".utf8), hash: Array(repeating: 5, count: 64)
    ).encoded

    /// The signature in a SIGN_RESPONSE, after checking its frame; nil for anything else.
    private func signature(in reply: [UInt8]) -> [UInt8]? {
        guard reply.count == 4 + 1 + 4 + 83, reply[4] == 14 else { return nil }
        let signatureBlob = Array(reply[9...])
        guard Array(signatureBlob.prefix(15)) == string(Array("ssh-ed25519".utf8)) else { return nil }
        return Array(signatureBlob.suffix(64))
    }

    private let failure: [UInt8] = [0, 0, 0, 1, 5]
    private let success: [UInt8] = [0, 0, 0, 1, 6]

    // MARK: Tests

    func testRequestIdentities_listsOnlyTheCallersUnlockedKeys_withTheirComments() throws {
        XCTAssertEqual(agent(11), SSHAgentReply.identities([]))
        let laptop = try unlocked("alice", label: "laptop")
        _ = try varlink("Register", ["user": "bob", "pin": pin, "purpose": "ssh"])  // registered, never unlocked
        XCTAssertEqual(agent(11), SSHAgentReply.identities([.init(keyBlob: blob(laptop), comment: "alice (laptop)")]))
        XCTAssertEqual(agent(11, as: mallory), SSHAgentReply.identities([]), "another uid sees the identity")
    }

    func testSignRequest_signsALoginAndAnSSHSIG_withTheUnlockedKey_whateverTheFlags() throws {
        let key = try unlocked("alice")
        for data in [userauth(key), userauth(key, hostbound: true), sshsig] {
            for flags: UInt8 in [0, 2, 4] {
                let signed = try XCTUnwrap(signature(in: agent(13, signRequest(key, data, flags: flags))), "flags \(flags)")
                XCTAssertTrue(data.withUnsafeBytes { Ed25519.verify(signature: signed, message: $0, publicKey: key) }, "flags \(flags)")
            }
        }
    }

    /// A relying party's raw challenge, or a login request made for another key, is not
    /// signed by an ssh key: the agent signs SSH data only.
    func testSignRequest_ofAnythingButSSHDataForThisKey_fails() throws {
        let key = try unlocked("alice")
        let other = try unlocked("alice", label: "other")
        for data in [Array(repeating: 0x41, count: 32), Array("session id and userauth request".utf8), [1], userauth(other)] {
            XCTAssertEqual(agent(13, signRequest(key, data)), failure, "\(data.count) bytes")
        }
        XCTAssertNotNil(signature(in: agent(13, signRequest(key, userauth(key)))), "the key still signs")
    }

    /// A key made to authenticate to apps is neither listed nor used by the agent,
    /// unlocked or not, and the agent's remove-all leaves its session alone.
    func testAnAuthenticateKey_isNotListed_norSigns_norLocked_byTheAgent() throws {
        let app = try unlocked("alice", label: "app", purpose: "authenticate")
        XCTAssertEqual(agent(11), SSHAgentReply.identities([]))
        XCTAssertEqual(agent(13, signRequest(app, userauth(app))), failure)
        XCTAssertEqual(agent(13, signRequest(app, sshsig)), failure)
        XCTAssertEqual(agent(18, string(blob(app))), failure)
        XCTAssertEqual(agent(19), success)
        let keyId = try XCTUnwrap(try varlink("List", ["user": "alice"])["credentials"] as? [[String: Any]]).first?["keyId"] as? String
        let signed = try varlink("Sign", ["keyId": keyId ?? "", "challenge": "YWJj"])
        XCTAssertNotNil(signed["signature"], "the agent's remove-all locked an app's session")
    }

    func testSignRequest_withoutASession_orFromAnotherUid_orForAnotherKey_fails() throws {
        let key = try unlocked("alice")
        XCTAssertEqual(agent(13, signRequest(key, userauth(key)), as: mallory), failure, "another uid signed")
        let stranger = [UInt8](repeating: 1, count: 32)
        XCTAssertEqual(agent(13, signRequest(stranger, userauth(stranger))), failure)
        XCTAssertEqual(agent(13, string(string(Array("ssh-rsa".utf8)) + string([1])) + string(sshsig) + [0, 0, 0, 0]), failure)
        try varlink("Lock", [:])
        XCTAssertEqual(agent(13, signRequest(key, userauth(key))), failure, "a locked key signed")
    }

    func testRemoveIdentity_locksThatKey_andRemoveAll_locksEveryKey() throws {
        let first = try unlocked("alice", label: "one")
        let second = try unlocked("alice", label: "two")
        XCTAssertEqual(agent(18, string(blob(first)), as: mallory), failure, "another uid locked the key")
        XCTAssertEqual(agent(18, string(blob(first))), success)
        XCTAssertEqual(agent(18, string(blob(first))), failure, "removing what is not there succeeded")
        XCTAssertEqual(agent(11), SSHAgentReply.identities([.init(keyBlob: blob(second), comment: "alice (two)")]))
        XCTAssertEqual(agent(19), success)
        XCTAssertEqual(agent(11), SSHAgentReply.identities([]))
        XCTAssertEqual(agent(19), success, "remove-all of nothing is a success, as in OpenSSH")
    }

    func testAddingKeys_smartcards_agentLocking_andUnknownMessages_fail() throws {
        _ = try unlocked("alice")
        for type: UInt8 in [17, 20, 21, 22, 23, 25, 26, 1, 2, 99, 255] {
            XCTAssertEqual(agent(type, string(Array("anything".utf8))), failure, "type \(type)")
        }
        XCTAssertEqual(agent(11).count > 9, true, "the key went away after the refusals")
    }

    func testExtensions_queryNamesSessionBind_aBindThatDoesNotVerify_andOthersAreRefused() throws {
        // As OpenSSH's ssh-agent answers: SSH_AGENT_EXTENSION_RESPONSE (29), "query", the names.
        XCTAssertEqual(
            agent(27, string(Array("query".utf8))),
            string([29] + string(Array("query".utf8)) + string(Array("query".utf8)) + string(Array("session-bind@openssh.com".utf8)))
        )
        let bind = string(blob([UInt8](repeating: 2, count: 32))) + string([1, 2]) + string(string(Array("ssh-ed25519".utf8)) + string([3])) + [0]
        XCTAssertEqual(agent(27, string(Array("session-bind@openssh.com".utf8)) + bind), SSHAgentReply.extensionFailure())
        XCTAssertEqual(agent(27, string(Array("session-bind@openssh.com".utf8)) + [1, 2]), SSHAgentReply.extensionFailure())
        XCTAssertEqual(agent(27, string(Array("other@example.org".utf8))), failure)
    }

    // MARK: session-bind, forwarding and confirmation

    private let host = try! SigningKeyPair(algorithm: .ed25519, seed: try! SecretBytes(copying: UnsafeRawBufferPointer(start: [UInt8](repeating: 3, count: 32), count: 32)))

    /// A session-bind as ssh sends it: the host key's signature over the session id.
    private func bind(session: [UInt8], forwarding: Bool, signedBy key: SigningKeyPair? = nil) throws -> [UInt8] {
        let signer = key ?? host
        let signature = try session.withUnsafeBytes { try signer.sign($0) }
        let contents = SSHSessionBind(
            hostKeyBlob: blob(host.publicKey), sessionIdentifier: session,
            signatureBlob: string(Array("ssh-ed25519".utf8)) + string(signature), isForwarding: forwarding
        ).encoded
        return string(Array("session-bind@openssh.com".utf8)) + contents
    }

    private func unlock(_ user: String, confirm: Bool = false, forwarding: Bool = false) throws -> [UInt8] {
        let credential = try varlink("Register", ["user": user, "pin": pin, "purpose": "ssh"])["credential"] as? [String: Any]
        try varlink("Unlock", [
            "user": user, "keyId": credential?["keyId"] as? String ?? "", "pin": pin, "ttlSeconds": 60,
            "confirmEachUse": confirm, "allowForwarding": forwarding,
        ])
        return [UInt8](Data(base64Encoded: credential?["publicKey"] as? String ?? "") ?? Data())
    }

    private func agent(_ type: UInt8, _ body: [UInt8], on connection: ConnectionID) -> [UInt8] {
        ([type] + body).withUnsafeBytes { message in
            vault.exchangeAgent(message: message, peer: alice, connection: connection) { Array($0) }
        }
    }

    func testAVerifiedBind_isRecorded_andAConnectionBoundToLogIn_takesNoOther() throws {
        let connection: ConnectionID = 1_000_001
        let key = try unlock("alice")
        XCTAssertEqual(agent(27, try bind(session: [1, 2, 3], forwarding: false), on: connection), success)
        XCTAssertNotNil(signature(in: agent(13, signRequest(key, userauth(key)), on: connection)), "a direct login signs")
        XCTAssertEqual(agent(27, try bind(session: [4, 5, 6], forwarding: false), on: connection), SSHAgentReply.extensionFailure())
        XCTAssertNotNil(signature(in: agent(13, signRequest(key, userauth(key)), on: connection)))
        // A claim of forwarding restricts, even refused: the connection signs no more.
        XCTAssertEqual(agent(27, try bind(session: [7, 8], forwarding: true), on: connection), SSHAgentReply.extensionFailure())
        XCTAssertEqual(agent(13, signRequest(key, userauth(key)), on: connection), failure)
        let forger = try SigningKeyPair(algorithm: .ed25519, seed: try KeyAlgorithm.generateSeed())
        XCTAssertEqual(agent(27, try bind(session: [7], forwarding: false, signedBy: forger), on: 1_000_002),
                       SSHAgentReply.extensionFailure(), "a bind whose signature is not the host key's")
    }

    /// A connection ssh forwarded signs nothing with a key not unlocked to allow it, and
    /// does with one that is; a claim of forwarding counts even when it does not verify.
    func testAForwardedConnection_signsOnlyWithAKeyUnlockedForForwarding() throws {
        let plain = try unlock("alice")
        let forwardable = try unlock("bob", forwarding: true)
        let forwarded: ConnectionID = 1_000_003
        XCTAssertEqual(agent(27, try bind(session: [1], forwarding: true), on: forwarded), success)
        XCTAssertEqual(agent(13, signRequest(plain, userauth(plain)), on: forwarded), failure, "signed for a forwarded agent")
        XCTAssertNotNil(signature(in: agent(13, signRequest(forwardable, userauth(forwardable)), on: forwarded)))
        let unverified: ConnectionID = 1_000_004
        let forger = try SigningKeyPair(algorithm: .ed25519, seed: try KeyAlgorithm.generateSeed())
        XCTAssertEqual(agent(27, try bind(session: [2], forwarding: true, signedBy: forger), on: unverified),
                       SSHAgentReply.extensionFailure())
        XCTAssertEqual(agent(13, signRequest(plain, userauth(plain)), on: unverified), failure, "an unverified claim of forwarding")
        XCTAssertNotNil(signature(in: agent(13, signRequest(plain, userauth(plain)))), "a connection never bound signs")
    }

    /// This door can ask no one: a key unlocked to confirm each use does not sign here.
    func testAKeyUnlockedToConfirmEachUse_doesNotSignThroughTheDaemonsAgent() throws {
        let key = try unlock("alice", confirm: true)
        XCTAssertEqual(agent(11).count > 9, true, "it is still offered")
        XCTAssertEqual(agent(13, signRequest(key, userauth(key))), failure)
    }

    func testMalformedMessages_fail_andTheNextIsServed() throws {
        let key = try unlocked("alice")
        XCTAssertEqual(agent(13, [0, 0, 0]), failure)
        XCTAssertEqual(agent(13, [0xff, 0xff, 0xff, 0xff]), failure)
        XCTAssertEqual(agent(11, [0]), failure)
        XCTAssertEqual(agent(11), SSHAgentReply.identities([.init(keyBlob: blob(key), comment: "alice")]))
    }
}
