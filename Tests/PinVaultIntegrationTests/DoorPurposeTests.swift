import Foundation
import Glibc
import PinVaultCrypto
import PinVaultEngine
import PinVaultTestKit
import XCTest

/// Every door of the engine's table (`KeyAccess`) against a credential of every purpose,
/// through the real daemon's real sockets: each pair is served or refused as the table
/// says (SECURITY.md, "Signature domains"). The doors come from `KeyAccess.allCases` and
/// the purposes from `KeyPurpose.allCases`, and `use` switches over the doors
/// exhaustively: a new door or purpose does not build, or fails here, until it is driven.
final class DoorPurposeTests: DaemonTestCase {
    private let user = "alice"
    /// Each purpose's credential of `user`: its key id and raw public key.
    private var credentials: [KeyPurpose: (keyId: String, publicKey: [UInt8])] = [:]
    /// Each registrable purpose's P-256 credential, for the door only such a key serves
    /// (SignDigest); legacy keys are Ed25519.
    private var p256Credentials: [KeyPurpose: (keyId: String, publicKey: [UInt8])] = [:]

    override func setUpWithError() throws {
        // Two credentials of each purpose (one of webauthn) and a legacy one, under one user.
        try startDaemon(["credentials": ["max_per_user": "\(2 * KeyPurpose.allCases.count)"]])
        for purpose in KeyPurpose.registrable {
            let credential = try client.register(user: user, pin: pin, label: purpose.rawValue, purpose: purpose.rawValue)
            XCTAssertEqual(credential.string("purpose"), purpose.rawValue)
            credentials[purpose] = try key(of: credential)
            // A uid has one security key (purpose webauthn): no second one to be P-256.
            guard purpose != .webauthn else { continue }
            let p256 = try client.register(
                user: user, pin: pin, label: purpose.rawValue + " p256", purpose: purpose.rawValue, algorithm: "p256")
            p256Credentials[purpose] = try key(of: p256)
        }
        client = nil
        XCTAssertEqual(try daemon.stop(), 0, daemon.log)
        _ = try LegacyCredentials.add(to: daemon, user: user, label: "legacy", pin: pin)
        try daemon.start()
        client = try daemon.connect()
        let legacy = try XCTUnwrap(try client.list(user: user).first { $0.string("label") == "legacy" })
        XCTAssertEqual(legacy.string("algorithm"), "ed25519")
        XCTAssertEqual(legacy.string("purpose"), "legacy")
        credentials[.legacy] = try key(of: legacy)
        XCTAssertEqual(Set(credentials.keys), Set(KeyPurpose.allCases))
    }

    private func key(of credential: [String: Any]) throws -> (keyId: String, publicKey: [UInt8]) {
        let keyId = try XCTUnwrap(credential.string("keyId"))
        let publicKey = [UInt8](try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(credential.string("publicKey")))))
        return (keyId, publicKey)
    }

    /// What the door is for, with a key of `purpose`: whether it was served, and what
    /// answered otherwise.
    private func use(_ access: KeyAccess, _ purpose: KeyPurpose) throws -> (served: Bool, answer: String) {
        let (keyId, publicKey) = try XCTUnwrap(credentials[purpose])
        switch access {
        case .authenticate:
            // pam_pinvault's challenge for a login key, a relying party's for the others.
            let challenge = purpose == .login
                ? Data("pam_pinvault v1\u{0}login\u{0}alice\u{0}".utf8) + Data(repeating: 7, count: 32)
                : Data("a relying party's challenge".utf8)
            let reply = try client.authenticate(user: user, pin: pin, keyId: keyId, challenge: challenge)
            return (reply.error == nil, reply.error ?? "")
        case .unlock:
            let reply = try client.vault("Unlock", ["user": user, "keyId": keyId, "pin": pin, "ttlSeconds": 60])
            return (reply.error == nil, reply.error ?? "")
        case .sign:
            _ = try client.vault("Unlock", ["user": user, "keyId": keyId, "pin": pin, "ttlSeconds": 60])
            let reply = try client.vault("Sign", ["keyId": keyId, "challenge": Data("a challenge".utf8).base64EncodedString()])
            return (reply.error == nil, reply.error ?? "")
        case .sshAgent:
            _ = try client.vault("Unlock", ["user": user, "keyId": keyId, "pin": pin, "ttlSeconds": 60])
            let agent = try SSHAgentClient(path: daemon.sshAgentSocketPath, timeoutSeconds: 10)
            try agent.send(SSHAgentClient.identitiesRequest)
            let listed = try agent.receiveFrame()
            let offered = listed.count > 9 && listed.indices.contains { listed[$0...].starts(with: publicKey) }
            try agent.send(SSHAgentClient.signRequest(
                publicKey: publicKey, data: SSHAgentClient.userauthRequest(publicKey: publicKey, user: user)
            ))
            let signed = try agent.receiveFrame()
            let didSign = signed.count > 4 && signed[4] == SSHAgentClient.signResponse
            XCTAssertEqual(offered, didSign, "the agent offered what it would not sign, or the reverse: \(purpose)")
            return (didSign, didSign ? "" : "SSH_AGENT_FAILURE")
        case .signDigest:
            // The PKCS#11 module's ssh tokens' way in: a SHA-256 digest, with a P-256 key.
            let keyId = try XCTUnwrap(p256Credentials[purpose] ?? credentials[purpose]).keyId
            _ = try client.vault("Unlock", ["user": user, "keyId": keyId, "pin": pin, "ttlSeconds": 60])
            let reply = try client.vault("SignDigest", ["keyId": keyId, "digest": Data(repeating: 0x5d, count: 32).base64EncodedString()])
            return (reply.error == nil, reply.error ?? "")
        case .passkey:
            // The security-key door (CTAP) has no socket in this daemon yet: its row is
            // KeyAccessTests' until then, and the loop below leaves it out.
            return (access.serves(purpose), "")
        case .userAgent:
            // The per-user agent's way in: Varlink AgentSign with the caller's session.
            _ = try client.vault("Unlock", ["user": user, "keyId": keyId, "pin": pin, "ttlSeconds": 60])
            let data = Data(SSHAgentClient.userauthRequest(publicKey: publicKey, user: user))
            let reply = try client.vault("AgentSign", ["keyId": keyId, "challenge": data.base64EncodedString()])
            return (reply.error == nil, reply.error ?? "")
        }
    }

    func testEveryDoor_servesExactlyThePurposesOfTheTable() throws {
        for access in KeyAccess.allCases where access != .passkey {
            for purpose in KeyPurpose.allCases {
                let (served, answer) = try use(access, purpose)
                XCTAssertEqual(served, access.serves(purpose), "\(access) × \(purpose): \(answer)")
                // Refused by name, except where the refusal comes first from elsewhere: the
                // agent socket answers SSH_AGENT_FAILURE, and a key Unlock does not serve
                // (login, a security key) is never unlocked (the session doors answer NotUnlocked).
                if !served, access != .sshAgent,
                   KeyAccess.unlock.serves(purpose) || access == .authenticate || access == .unlock {
                    XCTAssertEqual(answer, "io.pinvault.Vault.WrongPurpose", "\(access) × \(purpose)")
                }
                _ = try client.vault("Lock", [:])
            }
        }
        for credential in try client.list(user: user) {
            XCTAssertEqual(credential.int("failedAttempts"), 0, "a refused use counted: \(credential)")
        }
    }

    /// Authenticate and Sign refuse SSH-shaped challenges for every purpose, before the
    /// PIN: a wrong PIN with one counts nothing.
    func testSSHShapedChallenges_areInvalidParameters_forEveryKey_andCountNothing() throws {
        let (sshKeyId, sshPublicKey) = try XCTUnwrap(credentials[.ssh])
        let login = Data(SSHAgentClient.userauthRequest(publicKey: sshPublicKey, user: user))
        let gitSignature = Data(SSHAgentClient.sshsigPreimage())
        for purpose in [KeyPurpose.authenticate, .login, .legacy] {
            let keyId = try XCTUnwrap(credentials[purpose]).keyId
            for challenge in [login, gitSignature] {
                for pin in [pin, otherPin] {
                    let reply = try client.authenticate(user: user, pin: pin, keyId: keyId, challenge: challenge)
                    XCTAssertError(reply, "org.varlink.service.InvalidParameter")
                    XCTAssertEqual(reply.string("parameter"), "challenge", "\(purpose)")
                }
            }
        }
        for purpose in [KeyPurpose.authenticate, .legacy] {
            let keyId = try XCTUnwrap(credentials[purpose]).keyId
            _ = try client.succeeding("Unlock", ["user": user, "keyId": keyId, "pin": pin, "ttlSeconds": 60])
            for challenge in [login, gitSignature] {
                let reply = try client.vault("Sign", ["keyId": keyId, "challenge": challenge.base64EncodedString()])
                XCTAssertEqual(reply.string("parameter"), "challenge", "Sign, \(purpose): \(reply)")
            }
        }
        XCTAssertError(try client.authenticate(user: user, pin: pin, keyId: sshKeyId, challenge: login), "WrongPurpose")
        for credential in try client.list(user: user) {
            XCTAssertEqual(credential.int("failedAttempts"), 0, "a refused challenge counted: \(credential)")
        }
    }

    /// The agent signs a raw 32-byte challenge with no key, unlocked ssh key included.
    func testTheAgent_refusesARaw32ByteChallenge_withAnUnlockedSSHKey() throws {
        let (keyId, publicKey) = try XCTUnwrap(credentials[.ssh])
        _ = try client.succeeding("Unlock", ["user": user, "keyId": keyId, "pin": pin, "ttlSeconds": 60])
        let agent = try SSHAgentClient(path: daemon.sshAgentSocketPath, timeoutSeconds: 10)
        try agent.send(SSHAgentClient.signRequest(publicKey: publicKey, data: Array(RandomBytes.make(count: 32))))
        XCTAssertEqual(try agent.receiveFrame(), SSHAgentClient.failureReply)
        try agent.send(SSHAgentClient.signRequest(publicKey: publicKey, data: SSHAgentClient.sshsigPreimage()))
        XCTAssertEqual(try agent.receiveFrame()[4], SSHAgentClient.signResponse, "an SSHSIG preimage is what it signs")
    }

    func testRegister_refusesLegacyAndUnknownPurposes_byName() throws {
        for purpose in ["legacy", "", "SSH", "admin"] {
            let reply = try client.vault("Register", ["user": "bob", "pin": pin, "purpose": purpose])
            XCTAssertError(reply, "org.varlink.service.InvalidParameter")
            XCTAssertEqual(reply.string("parameter"), "purpose", purpose)
        }
        XCTAssertEqual(try client.register(user: "bob", pin: pin).string("purpose"), "authenticate", "the default")
    }

    /// The daemon names, once, how many legacy credentials it holds.
    func testTheDaemon_namesItsLegacyCredentialsOnce() throws {
        XCTAssertTrue(eventually(timeout: 10) { daemon.log.contains("legacyCredentials=1") }, daemon.log)
        XCTAssertEqual(daemon.log.components(separatedBy: "credentials made before key purposes").count, 2, daemon.log)
    }
}
