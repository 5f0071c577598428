import Foundation
import PinVaultCrypto
import PinVaultStore
import PinVaultTestKit
import XCTest

/// `pinvault passkey list|remove` over Varlink ListPasskeys and RemovePasskey: the
/// caller's passkeys, of one relying party with --rp, removed by the base64url id
/// `list` prints; a second removal, or an id that is not base64url, fails.
final class PasskeyCommandTests: CLITestCase {
    /// Registers the caller's security key and writes passkeys of it straight into the
    /// stopped daemon's vault, as the passkey door's MakeCredential stores them.
    private func storePasskeys(_ passkeys: [(rp: String, id: UInt8)]) throws {
        let keyId = try XCTUnwrap(KeyID(hex: try XCTUnwrap(try register("alice", purpose: "webauthn")["keyId"] as? String)))
        XCTAssertEqual(try daemon.stop(), 0, daemon.log)
        let store = try VaultStore(path: daemon.stateDirectory + "/vault.sqlite")
        defer { store.close() }
        try store.write { writer in
            for (index, passkey) in passkeys.enumerated() {
                try writer.insertPasskey(PasskeyRecord(
                    credentialId: [UInt8](repeating: passkey.id, count: 16), authenticatorKeyId: keyId,
                    ownerUid: getuid(), rpId: passkey.rp, rpIdHash: SHA256.hash(Array(passkey.rp.utf8)),
                    userHandle: [passkey.id], userName: "alice", displayName: "Alice", algorithm: .p256,
                    publicKey: [4] + [UInt8](repeating: passkey.id, count: 64), createdAt: 1_700_000_000 + Int64(index)))
            }
        }
        try daemon.start()
    }

    func testList_showsTheCallersPasskeys_andRemove_deletesOneById() throws {
        try storePasskeys([("example.com", 1), ("example.org", 2)])
        let listed = try pinvaultJSON(["passkey", "list"])
        let passkeys = try XCTUnwrap(listed["passkeys"] as? [[String: Any]])
        XCTAssertEqual(passkeys.map { $0["rpId"] as? String }, ["example.com", "example.org"])
        let id = try XCTUnwrap(passkeys.first?["credentialId"] as? String)
        XCTAssertEqual(id, Base64URL.encode([UInt8](repeating: 1, count: 16)))
        XCTAssertEqual(passkeys.first?["algorithm"] as? String, "p256")
        let org = try XCTUnwrap(try pinvaultJSON(["passkey", "list", "--rp", "example.org"])["passkeys"] as? [[String: Any]])
        XCTAssertEqual(org.map { $0["rpId"] as? String }, ["example.org"])
        let table = try pinvault(["passkey", "list"])
        XCTAssertTrue(table.standardOutput.contains("RELYING PARTY") && table.standardOutput.contains(id), table.standardOutput)

        XCTAssertEqual(try pinvault(["passkey", "remove", id]).status, 0)
        let after = try XCTUnwrap(try pinvaultJSON(["passkey", "list"])["passkeys"] as? [[String: Any]])
        XCTAssertEqual(after.map { $0["rpId"] as? String }, ["example.org"])
        let again = try pinvault(["passkey", "remove", id])
        XCTAssertNotEqual(again.status, 0, "\(again)")
        XCTAssertEqual(try pinvault(["passkey", "remove", "not base64url!"]).status, 64)
    }
}

/// base64url without padding, as WebAuthn writes ids.
private enum Base64URL {
    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
