import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// The module trusts no signature it did not check: a stand-in for pinvaultd (of the
/// test's own uid, so trusted as a daemon of one's own is) that lists a real credential
/// and answers Sign with bytes its key never signed gets CKR_DEVICE_ERROR, and the
/// bytes never reach the application.
final class ForgedReplyTests: PKCS11TestCase {
    func testASignatureTheTokensKeyDoesNotVerify_neverLeavesTheModule() throws {
        try startDaemon()
        let alice = try register("alice")
        let publicKey = alice.publicKey.base64EncodedString()
        let list = """
            {"parameters":{"credentials":[{"user":"alice","keyId":"\(alice.keyId)","label":null,"purpose":"authenticate",\
            "publicKey":"\(publicKey)","ownerUid":\(getuid()),"createdAt":"2026-01-01T00:00:00Z","lastUsedAt":null,\
            "failedAttempts":0,"remainingAttempts":10,"state":"active","lockedUntil":null,"unregistrationExpiresAt":null}]}}
            """
        let policy = """
            {"parameters":{"policy":{"minLength":6,"maxLength":64,"digitsOnly":true,"allowSequences":false,\
            "maxIdenticalDigits":3,"denyListSize":0,"throttleAfter":5,"maxAttempts":10,"onMaxAttempts":"block"}}}
            """
        let unlocked = #"{"parameters":{"keyId":"\#(alice.keyId)","unlockedUntil":"2036-01-01T00:00:00Z","failedAttemptsCleared":0}}"#
        // Well-formed, 64 bytes, and no signature of alice's key over anything.
        let forged = #"{"parameters":{"signature":"\#(Data(repeating: 0x5a, count: 64).base64EncodedString())"}}"#
        let stand = try ScriptedVarlinkServer { frame in
            guard let call = try? JSONSerialization.jsonObject(with: Data(frame)) as? [String: Any],
                  let method = call["method"] as? String else { return .close }
            switch method {
            case "io.pinvault.Vault.GetPolicy": return ScriptedVarlinkServer.reply(policy)
            case "io.pinvault.Vault.List": return ScriptedVarlinkServer.reply(list)
            case "io.pinvault.Vault.Unlock": return ScriptedVarlinkServer.reply(unlocked)
            case "io.pinvault.Vault.Sign": return ScriptedVarlinkServer.reply(forged)
            case "io.pinvault.Vault.Lock": return ScriptedVarlinkServer.reply(#"{"parameters":{"lockedKeyIds":[]}}"#)
            default: return .close
            }
        }
        defer { stand.stop() }
        let result = try run("/usr/bin/python3", ["-c", #"""
            import sys, PyKCS11
            lib = PyKCS11.PyKCS11Lib(); lib.load(sys.argv[1])
            session = lib.openSession(lib.getSlotList(tokenPresent=True)[0])
            session.login(sys.stdin.readline().rstrip("\n"))
            key = session.findObjects([(PyKCS11.CKA_CLASS, PyKCS11.CKO_PRIVATE_KEY)])[0]
            try:
                signature = session.sign(key, b"data", PyKCS11.Mechanism(PyKCS11.CKM_EDDSA, None))
                print("CKR_OK", bytes(signature).hex())
            except PyKCS11.PyKCS11Error as error:
                print(PyKCS11.CKR[error.value])
            """#, modules.pkcs11Module], input: pin + "\n", environment: ["PINVAULT_SOCKET": stand.socketPath])
        XCTAssertEqual(result.output.trimmingCharacters(in: .whitespacesAndNewlines), "CKR_DEVICE_ERROR", result.output)
        let methods = stand.received.compactMap { frame in
            (try? JSONSerialization.jsonObject(with: Data(frame)) as? [String: Any])?["method"] as? String
        }
        XCTAssertTrue(methods.contains("io.pinvault.Vault.Sign"), "the stand-in was never asked to sign: \(methods)")
    }
}
