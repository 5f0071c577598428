import PinVaultCrypto
import PinVaultSSHProtocol
import XCTest

@testable import PinVaultEngine

/// The one place a key's use is decided (`KeyAccess`): the door × purpose table, and
/// what each door may sign with a key of each purpose. The daemon's own test of the
/// table, door by door through real sockets, is `DoorPurposeTests`.
final class KeyAccessTests: XCTestCase {
    private let publicKey = [UInt8](repeating: 9, count: 32)

    /// SECURITY.md's table, written out. The switch over both enums is exhaustive: a
    /// new door or purpose does not build until its cells are here.
    private func expected(_ access: KeyAccess, _ purpose: KeyPurpose) -> Bool {
        switch access {
        case .authenticate:
            switch purpose {
            case .authenticate, .login, .legacy: true
            case .ssh, .webauthn: false
            }
        case .unlock:
            switch purpose {
            case .authenticate, .ssh, .legacy: true
            case .login, .webauthn: false
            }
        case .sign:
            switch purpose {
            case .authenticate, .legacy: true
            case .ssh, .login, .webauthn: false
            }
        case .sshAgent:
            switch purpose {
            case .ssh, .legacy: true
            case .authenticate, .login, .webauthn: false
            }
        case .userAgent:
            switch purpose {
            case .ssh: true
            case .authenticate, .login, .legacy, .webauthn: false
            }
        case .signDigest:
            switch purpose {
            case .ssh: true
            case .authenticate, .login, .legacy, .webauthn: false
            }
        case .passkey:
            switch purpose {
            case .webauthn: true
            case .authenticate, .ssh, .login, .legacy: false
            }
        }
    }

    /// An ordinary use of each door: what it is for.
    private func ordinaryMessage(_ access: KeyAccess, _ purpose: KeyPurpose) -> [UInt8]? {
        switch access {
        case .authenticate, .sign:
            purpose == .login ? LoginChallenge.prefix + Array("login\0alice\0".utf8) + [UInt8](repeating: 1, count: 32)
                : Array("a relying party's challenge".utf8)
        case .unlock:
            nil
        case .sshAgent, .userAgent:
            userauth(for: publicKey)
        case .signDigest:
            [UInt8](repeating: 0x5d, count: 32)
        case .passkey:
            assertion()
        }
    }

    /// The key an ordinary use of the door is made with: a P-256 one where only such a
    /// key serves (a digest), else Ed25519.
    private func ordinaryAlgorithm(_ access: KeyAccess) -> KeyAlgorithm {
        access == .signDigest ? .p256 : .ed25519
    }

    /// WebAuthn's signed data of an assertion: authenticatorData (rp id hash, flags,
    /// counter) ‖ clientDataHash.
    private func assertion(flags: UInt8 = 0x05) -> [UInt8] {
        WebAuthnSignedData.assertionData(rpIdHash: SHA256.hash(Array("example.com".utf8)), flags: flags, signCount: 0)
            + [UInt8](repeating: 0xcd, count: 32)
    }

    private func userauth(for key: [UInt8]) -> [UInt8] {
        SSHSignedData.UserauthRequest(
            sessionIdentifier: [UInt8](repeating: 7, count: 32), user: Array("alice".utf8),
            service: Array("ssh-connection".utf8), method: Array("publickey".utf8), algorithm: Array("ssh-ed25519".utf8),
            keyBlob: SSHKey(algorithm: .ed25519, publicKey: key).blob, hostKeyBlob: nil
        ).encoded
    }

    private let sshsig = SSHSignedData.SSHSIGPreimage(
        namespace: Array("git".utf8), reserved: [], hashAlgorithm: Array("sha512".utf8), hash: [UInt8](repeating: 2, count: 64)
    ).encoded

    private func outcome(
        _ access: KeyAccess, _ purpose: KeyPurpose, _ message: [UInt8]?, algorithm: KeyAlgorithm = .ed25519, publicKey: [UInt8]? = nil
    ) -> VaultError? {
        do throws(VaultError) {
            try access.check(purpose, message: message, algorithm: algorithm, publicKey: publicKey ?? self.publicKey)
            return nil
        } catch {
            return error
        }
    }

    func testEveryDoorAndPurpose_isServedOrRefused_asTheTableSays() {
        for access in KeyAccess.allCases {
            for purpose in KeyPurpose.allCases {
                XCTAssertEqual(access.serves(purpose), expected(access, purpose), "\(access) × \(purpose)")
                let result = outcome(access, purpose, ordinaryMessage(access, purpose), algorithm: ordinaryAlgorithm(access))
                if expected(access, purpose) {
                    XCTAssertNil(result, "\(access) × \(purpose): an ordinary use was refused")
                } else {
                    XCTAssertEqual(result, .wrongPurpose(purpose), "\(access) × \(purpose)")
                }
            }
        }
    }

    /// Authenticate and Sign never sign what could be meant as SSH data, whatever the
    /// key: not a login for this key, nor for another, nor an SSHSIG preimage.
    func testAuthenticateAndSign_refuseSSHShapedChallenges_forEveryPurposeTheyServe() {
        let shaped = [userauth(for: publicKey), userauth(for: [UInt8](repeating: 1, count: 32)), sshsig]
        for access in [KeyAccess.authenticate, .sign] {
            for purpose in KeyPurpose.allCases where access.serves(purpose) {
                for message in shaped {
                    XCTAssertEqual(outcome(access, purpose, message), .invalidChallenge, "\(access) × \(purpose)")
                }
            }
        }
    }

    func testALoginKey_signsOnlyThePamModulesChallenges() {
        XCTAssertNil(outcome(.authenticate, .login, LoginChallenge.prefix + [1, 2, 3]))
        XCTAssertEqual(outcome(.authenticate, .login, Array("challenge".utf8)), .wrongPurpose(.login))
        XCTAssertEqual(outcome(.authenticate, .login, Array(LoginChallenge.prefix.dropLast())), .wrongPurpose(.login), "no NUL after it")
        XCTAssertNil(outcome(.authenticate, .legacy, Array("challenge".utf8)), "a legacy key signs what it signed before")
        XCTAssertEqual(LoginChallenge.prefix, Array("pam_pinvault v1".utf8) + [0], "pam/pv_request.h PV_CONTEXT and its NUL")
    }

    /// The agent signs a userauth request made for its own key, or an SSHSIG preimage,
    /// and nothing else: not a raw challenge, not a login for another key.
    func testTheAgent_signsOnlySSHDataForItsOwnKey() {
        for purpose in [KeyPurpose.ssh, .legacy] {
            XCTAssertNil(outcome(.sshAgent, purpose, userauth(for: publicKey)), "\(purpose)")
            XCTAssertNil(outcome(.sshAgent, purpose, sshsig), "\(purpose)")
            XCTAssertEqual(outcome(.sshAgent, purpose, [UInt8](repeating: 0x41, count: 32)), .invalidChallenge, "\(purpose)")
            XCTAssertEqual(outcome(.sshAgent, purpose, userauth(for: [UInt8](repeating: 1, count: 32))), .invalidChallenge)
            XCTAssertEqual(outcome(.sshAgent, purpose, LoginChallenge.prefix + [1]), .invalidChallenge)
        }
    }

    /// A P-256 key's SSH request names it as `ecdsa-sha2-nistp256` with its point; the
    /// same point under another type, or the Ed25519 key's request, is not for it.
    func testTheAgents_signALoginForAP256Key_underItsOwnTypeOnly() {
        let point = [0x04] + [UInt8](repeating: 5, count: 64)
        func request(_ name: String, _ blob: [UInt8]) -> [UInt8] {
            SSHSignedData.UserauthRequest(
                sessionIdentifier: [UInt8](repeating: 7, count: 32), user: Array("alice".utf8),
                service: Array("ssh-connection".utf8), method: Array("publickey".utf8), algorithm: Array(name.utf8),
                keyBlob: blob, hostKeyBlob: nil
            ).encoded
        }
        let p256Blob = SSHKey(algorithm: .p256, publicKey: point).blob
        for access in [KeyAccess.sshAgent, .userAgent] {
            XCTAssertNil(outcome(access, .ssh, request("ecdsa-sha2-nistp256", p256Blob), algorithm: .p256, publicKey: point))
            XCTAssertNil(outcome(access, .ssh, sshsig, algorithm: .p256, publicKey: point))
            XCTAssertEqual(
                outcome(access, .ssh, request("ssh-ed25519", p256Blob), algorithm: .p256, publicKey: point), .invalidChallenge,
                "the point under another algorithm's name")
            XCTAssertEqual(
                outcome(access, .ssh, userauth(for: publicKey), algorithm: .p256, publicKey: point), .invalidChallenge,
                "another key's login")
            XCTAssertEqual(
                outcome(access, .ssh, request("ecdsa-sha2-nistp256", p256Blob)), .invalidChallenge,
                "a P-256 login is not the Ed25519 key's")
        }
    }

    /// SignDigest: a digest, which nothing can shape-check, only with an `ssh` key, and
    /// only one whose algorithm signs digests; whatever the digest holds — even bytes
    /// shaped as SSH data — it is not looked into.
    func testSignDigest_signsOnlyWithAP256SSHKey() {
        let digest = [UInt8](repeating: 0x5d, count: 32)
        XCTAssertNil(outcome(.signDigest, .ssh, digest, algorithm: .p256))
        XCTAssertEqual(outcome(.signDigest, .ssh, digest, algorithm: .ed25519), .signsNoDigest)
        for purpose in [KeyPurpose.authenticate, .login, .legacy] {
            XCTAssertEqual(outcome(.signDigest, purpose, digest, algorithm: .p256), .wrongPurpose(purpose), "\(purpose)")
        }
        XCTAssertTrue(KeyAccess.signDigest.signsDigest)
        XCTAssertEqual(KeyAccess.allCases.filter(\.signsDigest), [.signDigest], "no other door signs a caller's digest")
    }

    /// The passkey door signs WebAuthn's signed data and nothing else: no relying party's
    /// raw challenge, no SSH data, no digest, nothing with a reserved or extension flag or
    /// without presence or verification, no assertion of another length.
    func testThePasskeyDoor_signsOnlyWebAuthnsSignedData() {
        XCTAssertNil(outcome(.passkey, .webauthn, assertion()))
        XCTAssertNil(outcome(.passkey, .webauthn, assertion(flags: 0x01)), "presence alone")
        let attested = WebAuthnSignedData.assertionData(
            rpIdHash: [UInt8](repeating: 3, count: 32), flags: 0x45, signCount: 0) + [UInt8](repeating: 0, count: 16)
            + [0, 16] + [UInt8](repeating: 4, count: 16) + [0xa4, 1, 1, 3, 0x27] + [UInt8](repeating: 0xcd, count: 32)
        XCTAssertNil(outcome(.passkey, .webauthn, attested), "a self-attested registration")
        let refused: [[UInt8]] = [
            Array("a relying party's challenge".utf8), userauth(for: publicKey), sshsig, [UInt8](repeating: 0x5d, count: 32),
            assertion(flags: 0x00), assertion(flags: 0x07), assertion(flags: 0x85), assertion(flags: 0x15), assertion() + [0],
            Array(assertion().dropLast()), [],
        ]
        for message in refused {
            XCTAssertEqual(outcome(.passkey, .webauthn, message), .invalidChallenge, "\(message)")
        }
        // And no other door signs WebAuthn's data with a security key's credential.
        for access in KeyAccess.allCases where access != .passkey {
            XCTAssertEqual(outcome(access, .webauthn, assertion()), .wrongPurpose(.webauthn), "\(access)")
        }
    }
}
