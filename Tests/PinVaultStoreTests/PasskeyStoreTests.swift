import XCTest
import PinVaultCrypto
@testable import PinVaultStore

/// `passkeys` (schema v7): the discoverable credentials of an authenticator credential,
/// by owner and relying party, one per account of a relying party, gone with their
/// authenticator credential; and the purpose `webauthn` the rebuilt table accepts.
final class PasskeyStoreTests: StoreTestCase {
    private func passkey(
        _ authenticator: CredentialRecord, rp: String = "example.com", handle: UInt8 = 1, id: UInt8 = 1, createdAt: Int64 = 1
    ) -> PasskeyRecord {
        PasskeyRecord(
            credentialId: [UInt8](repeating: id, count: 16), authenticatorKeyId: authenticator.keyId,
            ownerUid: authenticator.ownerUid, rpId: rp, rpIdHash: SHA256.hash(Array(rp.utf8)),
            userHandle: [handle], userName: "alice", displayName: "Alice", algorithm: .p256,
            publicKey: [4] + [UInt8](repeating: id, count: 64), createdAt: createdAt)
    }

    func testPasskeys_byOwnerAndRelyingParty_oneAccountOnce_deletedByOwner() throws {
        let authenticator = try CredentialFixtures.record(purpose: .webauthn)
        let first = passkey(authenticator, id: 1, createdAt: 1)
        let other = passkey(authenticator, rp: "example.org", id: 2, createdAt: 2)
        let sameAccount = passkey(authenticator, id: 3, createdAt: 3)
        try store.write { writer in
            try writer.insert(authenticator)
            try writer.insertPasskey(first)
            try writer.insertPasskey(other)
        }
        XCTAssertEqual(try store.read { try $0.credential(keyId: authenticator.keyId)?.purpose }, .webauthn)
        XCTAssertEqual(try store.read { try $0.passkeys(ownerUid: 1000) }, [first, other])
        XCTAssertEqual(try store.read { try $0.passkeys(ownerUid: 1000, rpIdHash: first.rpIdHash) }, [first])
        XCTAssertEqual(try store.read { try $0.passkeys(ownerUid: 1001) }, [], "another uid's are not listed")
        // A new passkey for the same account of the same relying party replaces the old.
        try store.write { try $0.insertPasskey(sameAccount) }
        XCTAssertEqual(try store.read { try $0.passkeys(ownerUid: 1000, rpIdHash: first.rpIdHash) }, [sameAccount])
        XCTAssertEqual(try store.read { try $0.passkeyCount(ownerUid: 1000) }, 2)
        try store.write { writer in
            XCTAssertFalse(try writer.deletePasskey(credentialId: other.credentialId, ownerUid: 1001), "not the owner")
            XCTAssertTrue(try writer.deletePasskey(credentialId: other.credentialId, ownerUid: 1000))
            XCTAssertFalse(try writer.deletePasskey(credentialId: other.credentialId, ownerUid: 1000), "gone already")
        }
        XCTAssertEqual(try store.read { try $0.passkeys(ownerUid: 1000) }, [sameAccount])
    }

    func testPasskeys_goWithTheirAuthenticatorCredential() throws {
        let authenticator = try CredentialFixtures.record(user: "alice", purpose: .webauthn)
        let app = try CredentialFixtures.record(user: "alice", purpose: .authenticate, createdAt: 2)
        try store.write { writer in
            try writer.insert(authenticator)
            try writer.insert(app)
            try writer.insertPasskey(passkey(authenticator))
            XCTAssertTrue(try writer.delete(keyId: app.keyId))
        }
        XCTAssertEqual(try store.read { try $0.passkeyCount(ownerUid: 1000) }, 1, "another credential's delete leaves them")
        try store.write { XCTAssertTrue(try $0.delete(keyId: authenticator.keyId)) }
        XCTAssertEqual(try store.read { try $0.passkeyCount(ownerUid: 1000) }, 0)
    }

    func testTheSchema_refusesAPasskeyOfTheWrongShape() throws {
        let authenticator = try CredentialFixtures.record(purpose: .webauthn)
        try store.write { try $0.insert(authenticator) }
        var shortId = passkey(authenticator)
        shortId.credentialId = [UInt8](repeating: 1, count: 15)
        var longHandle = passkey(authenticator)
        longHandle.userHandle = [UInt8](repeating: 1, count: 65)
        var longName = passkey(authenticator)
        longName.userName = String(repeating: "a", count: 65)
        for record in [shortId, longHandle, longName] {
            XCTAssertThrowsError(try store.write { try $0.insertPasskey(record) })
        }
        XCTAssertEqual(try store.read { try $0.passkeyCount(ownerUid: 1000) }, 0)
    }
}
