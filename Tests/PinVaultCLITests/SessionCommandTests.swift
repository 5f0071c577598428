import Foundation
import PinVaultTestKit
import XCTest

/// `pinvault unlock`, `sign`, `lock` and `ssh-key` against a real daemon.
final class SessionCommandTests: CLITestCase {
    func testUnlockThenSign_signsWithoutAPin_andLockEndsIt_withExitTen() throws {
        let keyId = try registerKeyId("alice", label: "laptop")
        let unlocked = try pinvaultJSON(["unlock", "alice", "--ttl", "90s", "--pin-stdin"], input: pin + "\n")
        XCTAssertEqual(unlocked["keyId"] as? String, keyId)
        XCTAssertEqual(unlocked["failedAttemptsCleared"] as? Int, 0)
        XCTAssertNotNil(unlocked["unlockedUntil"] as? String)
        let signed = try pinvaultJSON(["sign", "alice", "--challenge-hex", "00ff"])
        XCTAssertEqual(Data(base64Encoded: signed["signature"] as? String ?? "")?.count, 64)
        let listed = try listed().first
        XCTAssertNotNil(listed?["unlockedUntil"] as? String, "list --json shows unlockedUntil")

        let locked = try pinvaultJSON(["lock", "alice"])
        XCTAssertEqual(locked["lockedKeyIds"] as? [String], [keyId])
        let refused = try pinvault(["sign", "alice", "--challenge-hex", "00ff"])
        XCTAssertEqual(refused.status, 10, "\(refused)")
        XCTAssertTrue(refused.standardError.contains("not unlocked"), "\(refused)")
    }

    func testLockAll_andLockWithNothingToLock() throws {
        _ = try registerKeyId("alice")
        _ = try registerKeyId("bob")
        for user in ["alice", "bob"] {
            XCTAssertEqual(try pinvault(["unlock", user, "--pin-stdin"], input: pin + "\n").status, 0)
        }
        XCTAssertEqual((try pinvaultJSON(["lock", "--all"])["lockedKeyIds"] as? [String])?.count, 2)
        let nothing = try pinvault(["lock", "--all"])
        XCTAssertEqual(nothing.status, 0)
        XCTAssertEqual(nothing.standardOutput, "Nothing was unlocked.\n")
        XCTAssertEqual(try pinvault(["lock"]).status, 64, "lock without USER or --all is a usage error")
    }

    func testSSHKey_printsTheOpenSSHLine_ofTheCredentialsKey() throws {
        let credential = try register("alice@example.org", label: "laptop", purpose: "ssh")
        _ = try register("alice@example.org", label: "app")
        let line = try pinvault(["ssh-key", "alice@example.org"])
        XCTAssertEqual(line.status, 0, "the user's one ssh key is meant: \(line)")
        let fields = line.standardOutput.trimmingCharacters(in: .newlines).split(separator: " ", maxSplits: 2)
        guard fields.count == 3 else { return XCTFail("not a key line: \(line)") }
        XCTAssertEqual(fields.first, "ssh-ed25519")
        XCTAssertEqual(fields.last, "alice@example.org (laptop)")
        let blob = try XCTUnwrap(Data(base64Encoded: String(fields[1])))
        XCTAssertEqual(blob.suffix(32), Data(base64Encoded: credential["publicKey"] as? String ?? ""), "the blob's key is the credential's")
        XCTAssertEqual(Array(blob.prefix(15)), [0, 0, 0, 11] + Array("ssh-ed25519".utf8))
    }

    /// `register --algorithm p256`: the table and `list` name the algorithm, `ssh-key`
    /// prints an `ecdsa-sha2-nistp256` line whose point is the credential's, and an
    /// unknown algorithm is a usage error (64) that registers nothing.
    func testRegisterWithP256_isListedAsSuch_andItsSSHLineIsECDSA() throws {
        let registered = try pinvault(["register", "bob", "--purpose", "ssh", "--algorithm", "p256", "--pin-stdin"], input: pin + "\n")
        XCTAssertEqual(registered.status, 0, "\(registered)")
        XCTAssertTrue(registered.standardOutput.contains("Algorithm:") && registered.standardOutput.contains("p256"), registered.standardOutput)
        let listed = try pinvault(["list", "bob"])
        XCTAssertTrue(listed.standardOutput.contains("ALGORITHM"), listed.standardOutput)
        let credential = try XCTUnwrap(try self.listed().first { $0["user"] as? String == "bob" })
        XCTAssertEqual(credential["algorithm"] as? String, "p256")
        let line = try pinvault(["ssh-key", "bob"])
        let fields = line.standardOutput.split(separator: " ")
        XCTAssertEqual(fields.first, "ecdsa-sha2-nistp256", "\(line)")
        let blob = try XCTUnwrap(Data(base64Encoded: String(fields.dropFirst().first ?? "")))
        XCTAssertEqual(blob.suffix(65), Data(base64Encoded: credential["publicKey"] as? String ?? ""))

        let refused = try pinvault(["register", "carol", "--algorithm", "rsa", "--pin-stdin"], input: pin + "\n")
        XCTAssertEqual(refused.status, 64, "\(refused)")
        XCTAssertTrue(refused.standardError.contains("--algorithm is one of ed25519, p256"), refused.standardError)
        XCTAssertNil(try self.listed().first { $0["user"] as? String == "carol" })
    }

    /// `register --purpose webauthn` makes the uid's security key: listed as such, one per
    /// uid (a second is TooManyCredentials, whatever its user), its key used by no
    /// Varlink door (auth is WrongPurpose before the PIN: nothing counted), and the PIN
    /// the CLI is given — not its hash — changes it (`pinvault change-pin`).
    func testRegisterWebauthn_isTheUidsOneSecurityKey_andNoVarlinkDoorUsesIt() throws {
        let credential = try register("alice", purpose: "webauthn")
        XCTAssertEqual(credential["purpose"] as? String, "webauthn")
        let second = try pinvault(["register", "bob", "--purpose", "webauthn", "--pin-stdin"], input: pin + "\n")
        XCTAssertEqual(second.status, 1, "\(second)")
        XCTAssertTrue(second.standardError.contains("too many credentials (the limit is 1)"), second.standardError)
        XCTAssertNil(try listed().first { $0["user"] as? String == "bob" })
        let auth = try authenticate("alice", pin: pin)
        XCTAssertEqual(auth.status, 11, "\(auth)")
        let changed = try pinvault(["change-pin", "alice", "--pin-stdin"], input: pin + "\n" + "604913\n")
        XCTAssertEqual(changed.status, 0, "\(changed)")
        XCTAssertEqual(try listed().first { $0["user"] as? String == "alice" }?["failedAttempts"] as? Int, 0)
    }

    /// A key for apps is never offered to ssh: its line is not printed (status 11).
    func testSSHKey_ofAnAppsKey_isWrongPurpose() throws {
        let keyId = try registerKeyId("alice", label: "app")
        let line = try pinvault(["ssh-key", "alice"])
        XCTAssertEqual(line.status, 11, "\(line)")
        XCTAssertEqual(line.standardOutput, "")
        XCTAssertTrue(line.standardError.contains("this key is for authenticate; pinvault ssh-key cannot use it"), line.standardError)
        XCTAssertEqual(try pinvault(["ssh-key", "alice", "--key-id", keyId]).status, 11)
        let json = try pinvaultJSON(["ssh-key", "alice"], expecting: 11)
        XCTAssertEqual(json["error"] as? String, "io.pinvault.Vault.WrongPurpose")
        XCTAssertEqual((json["parameters"] as? [String: Any])?["purpose"] as? String, "authenticate")
    }

    func testAWrongPinInUnlock_exitsTwo_andTheTtlMustBeADuration() throws {
        _ = try registerKeyId("alice")
        XCTAssertEqual(try pinvault(["unlock", "alice", "--pin-stdin"], input: "999135\n").status, 2)
        XCTAssertEqual(try pinvault(["unlock", "alice", "--ttl", "soon", "--pin-stdin"], input: pin + "\n").status, 64)
        XCTAssertEqual(try pinvault(["unlock", "alice", "--ttl", "0s", "--pin-stdin"], input: pin + "\n").status, 64)
    }
}
