import Foundation
import PinVaultTestKit
import XCTest

/// pam_pinvault through Debian's pamtester against a real pinvaultd: each result of
/// docs/PAM.md, seen the way a PAM application sees it.
final class PamtesterTests: PAMTestCase {
    func testRightPin_signsTheUserIn_asRootWithOwnerUid() throws {
        try startDaemon()
        let credential = try registerAsUser()
        let outcome = try pamtester(try onlyModule(), input: pin + "\n")
        XCTAssertTrue(outcome.succeeded, outcome.description)
        XCTAssertEqual(outcome.prompts, 1, outcome.description)
        XCTAssertTrue(outcome.output.contains("PIN for \(user.name): "), outcome.description)
        XCTAssertFalse(outcome.output.contains("wrong PIN"), "no failedAttemptsCleared, no message: \(outcome)")
        // Run as root, the module named the owner: the daemon's audit line says so.
        let line = daemon.log.split(separator: "\n").first { $0.contains("event=auth.ok") }
        XCTAssertNotNil(line, daemon.log)
        XCTAssertTrue(line?.contains("uid=0") == true && line?.contains("ownerUid=\(user.uid)") == true, daemon.log)
        XCTAssertTrue(line?.contains("keyId=\(credential["keyId"] as? String ?? "?")") == true, daemon.log)
    }

    /// A P-256 login key: the module verifies its DER ECDSA signature with the listed point.
    func testRightPin_signsTheUserIn_withAP256LoginKey_andAWrongOneIsCounted() throws {
        try startDaemon()
        let credential = try registerAsUser(algorithm: "p256")
        XCTAssertEqual(credential["algorithm"] as? String, "p256")
        let service = try onlyModule(["debug"])
        let outcome = try pamtester(service, input: pin + "\n")
        XCTAssertTrue(outcome.succeeded, outcome.description)
        XCTAssertEqual(outcome.prompts, 1, outcome.description)
        XCTAssertTrue(daemon.log.contains("event=auth.ok"), daemon.log)
        let wrong = try pamtester(service, input: wrongPin + "\n")
        XCTAssertTrue(wrong.failed(with: PAMResult.authError), wrong.description)
        XCTAssertTrue(wrong.output.contains("Wrong PIN (4 attempts left)"), wrong.description)
    }

    func testWrongPin_isAuthErr_andTellsTheAttemptsLeft() throws {
        try startDaemon()
        try registerAsUser()
        let outcome = try pamtester(try onlyModule(), input: wrongPin + "\n")
        XCTAssertTrue(outcome.failed(with: PAMResult.authError), outcome.description)
        XCTAssertTrue(outcome.output.contains("Wrong PIN (4 attempts left)"), outcome.description)
        XCTAssertEqual(try usersCredentials().first?["failedAttempts"] as? Int, 1)
    }

    func testRightPin_afterAWrongOne_tellsTheUserAWrongPinWasTried() throws {
        try startDaemon()
        try registerAsUser()
        let service = try onlyModule()
        XCTAssertTrue(try pamtester(service, input: wrongPin + "\n").output.contains("Wrong PIN (4 attempts left)"))
        let outcome = try pamtester(service, input: pin + "\n")
        XCTAssertTrue(outcome.succeeded, outcome.description)
        XCTAssertTrue(outcome.output.contains("1 wrong PIN was tried since your last sign-in"), outcome.description)
        let next = try pamtester(service, input: pin + "\n")
        XCTAssertFalse(next.output.contains("was tried"), next.description)
    }

    func testThrottled_isMaxTries_withTheWait_andNoPinIsAskedFor() throws {
        try startDaemon(["lockout": ["throttle_after": "2", "throttle_base_seconds": "60", "throttle_max_seconds": "120"]])
        try registerAsUser()
        let service = try onlyModule()
        XCTAssertTrue(try pamtester(service, input: wrongPin + "\n").output.contains("Wrong PIN (4 attempts left)"))
        XCTAssertTrue(try pamtester(service, input: wrongPin + "\n").output.contains("Wrong PIN (3 attempts left)"))
        let outcome = try pamtester(service, input: pin + "\n")
        XCTAssertTrue(outcome.failed(with: PAMResult.maxTries), outcome.description)
        XCTAssertNotNil(outcome.output.range(of: #"Too many wrong PINs: try again in (59|60) s"#, options: .regularExpression),
                        outcome.description)
        XCTAssertEqual(outcome.prompts, 0, "a throttled credential is not asked a PIN: \(outcome)")
        XCTAssertEqual(try usersCredentials().first?["failedAttempts"] as? Int, 2, "nothing more was counted")
    }

    func testBlocked_isMaxTries_askAnAdministrator_andUnblockRevivesIt() throws {
        try startDaemon(["lockout": ["throttle_after": "3", "max_attempts": "3"]])
        let credential = try registerAsUser()
        let service = try onlyModule()
        for left in [2, 1] {
            let outcome = try pamtester(service, input: wrongPin + "\n")
            XCTAssertTrue(outcome.output.contains("Wrong PIN (\(left) attempt\(left == 1 ? "" : "s") left)"), outcome.description)
        }
        // The third wrong PIN blocks: the daemon answers CredentialBlocked.
        let blocking = try pamtester(service, input: wrongPin + "\n")
        XCTAssertTrue(blocking.failed(with: PAMResult.maxTries), blocking.description)
        XCTAssertTrue(blocking.output.contains("PIN blocked: ask an administrator"), blocking.description)
        // Afterwards List says blocked: refused before any PIN is asked for, even the right one.
        let blocked = try pamtester(service, input: pin + "\n")
        XCTAssertTrue(blocked.failed(with: PAMResult.maxTries), blocked.description)
        XCTAssertTrue(blocked.output.contains("PIN blocked: ask an administrator"), blocked.description)
        XCTAssertEqual(blocked.prompts, 0, blocked.description)

        // docs/PAM.md: the admin unblocks.
        let reply = try daemon.connect().vault("Unblock", [
            "ownerUid": Int(user.uid), "user": user.name, "keyId": credential["keyId"] as? String ?? "",
        ])
        XCTAssertNil(reply.error, reply.description)
        XCTAssertTrue(try pamtester(service, input: pin + "\n").succeeded)
    }

    func testNoCredential_isUserUnknown_orIgnoredWithNouserok() throws {
        try startDaemon()
        try registerAsUser(label: "laptop")  // a login credential, but not labelled as label= asks below
        // `ignore` goes on to pam_permit; any other result ends the stack with it.
        func stack(_ options: [String]) throws -> PAMServiceFile {
            try PAMServiceFile([
                moduleLine("[success=done ignore=ignore default=die]", options),
                "auth required pam_permit.so",
            ])
        }
        let unknown = try pamtester(try stack(["label=login"]))
        XCTAssertTrue(unknown.failed(with: PAMResult.userUnknown), unknown.description)
        let ignored = try pamtester(try stack(["label=login", "nouserok"]))
        XCTAssertTrue(ignored.succeeded, "PAM_IGNORE lets pam_permit decide: \(ignored)")
        for outcome in [unknown, ignored] {
            XCTAssertEqual(outcome.prompts, 0, "no credential, no PIN prompt: \(outcome)")
        }
        // label= picks the credential; without it, the user's one login credential is taken.
        XCTAssertTrue(try pamtester(try onlyModule(["label=laptop"]), input: pin + "\n").succeeded)
        XCTAssertTrue(try pamtester(try onlyModule(), input: pin + "\n").succeeded)
    }

    func testUnknownAccount_isUserUnknown() throws {
        try startDaemon()
        let outcome = try pamtester(try onlyModule(), user: "pvt-no-such-account")
        XCTAssertTrue(outcome.failed(with: PAMResult.userUnknown), outcome.description)
    }

    func testDaemonStopped_isAuthInfoUnavailable_withoutAPrompt_soThePasswordTakesOver() throws {
        try startDaemon()
        try registerAsUser()
        XCTAssertEqual(try daemon.stop(), 0)
        let alone = try pamtester(try onlyModule(), input: pin + "\n")
        XCTAssertTrue(alone.failed(with: PAMResult.authInfoUnavailable), alone.description)
        XCTAssertEqual(alone.prompts, 0, alone.description)
        // Exactly PAM_AUTHINFO_UNAVAIL: only it is ignored here, so pam_permit (standing
        // in for the password) decides.
        let fallThrough = try pamtester(try PAMServiceFile([
            moduleLine("[success=done authinfo_unavail=ignore default=die]"),
            "auth required pam_permit.so",
        ]))
        XCTAssertTrue(fallThrough.succeeded, fallThrough.description)
    }

    /// PAM_SILENT (which sudo 1.9.13 always passes) hides the message, not the result.
    func testPAM_SILENT_hidesTheMessage_butNotTheResult() throws {
        try startDaemon()
        try registerAsUser()
        let outcome = try pamtester(try onlyModule(), input: wrongPin + "\n", operation: "authenticate(PAM_SILENT)")
        XCTAssertTrue(outcome.failed(with: PAMResult.authError), outcome.description)
        XCTAssertFalse(outcome.output.contains("Wrong PIN"), outcome.description)
        XCTAssertEqual(try usersCredentials().first?["failedAttempts"] as? Int, 1)
    }

    /// Only `auth` is the module's: account, session and password answer PAM_IGNORE.
    func testTheOtherManagementGroups_answerIgnore() throws {
        try startDaemon()
        let lines = ["account", "session", "password"].flatMap { group in
            ["\(group) [ignore=ignore default=die] \(module.path)", "\(group) required pam_permit.so"]
        }
        let service = try PAMServiceFile(lines)
        for operation in ["acct_mgmt", "open_session", "close_session"] {
            let outcome = try pamtester(service, operation: operation)
            XCTAssertEqual(outcome.status, 0, "\(operation): \(outcome)")
        }
    }

    func testBadOption_isServiceError() throws {
        try startDaemon()
        try registerAsUser()
        for option in ["frobnicate", "timeout=0", "socket=relative/path", "label="] {
            let outcome = try pamtester(try onlyModule([option]), input: pin + "\n")
            XCTAssertTrue(outcome.failed(with: PAMResult.serviceError), "\(option): \(outcome)")
            XCTAssertEqual(outcome.prompts, 0, outcome.description)
        }
    }

    func testEmptyPin_isNotSent_andCostsNothing() throws {
        try startDaemon()
        try registerAsUser()
        let outcome = try pamtester(try onlyModule(), input: "\n")
        XCTAssertTrue(outcome.failed(with: PAMResult.authInfoUnavailable), outcome.description)
        XCTAssertEqual(try usersCredentials().first?["failedAttempts"] as? Int, 0)
    }

    /// A PIN typed in a terminal of another encoding (Latin-1 "é") cannot be sent as JSON
    /// text: AUTH_ERR with a message, nothing sent, nothing counted.
    func testAPinThatIsNotUTF8_isAuthErr_notSent_andCostsNothing() throws {
        try startDaemon()
        try registerAsUser()
        let outcome = try pamtester(try onlyModule(), bytes: Data([0x32, 0x35, 0xE9, 0x30, 0x34, 0x36, 0x0A]))
        XCTAssertTrue(outcome.failed(with: PAMResult.authError), outcome.description)
        XCTAssertTrue(outcome.output.contains("A PIN is UTF-8 text"), outcome.description)
        XCTAssertEqual(try usersCredentials().first?["failedAttempts"] as? Int, 0)
    }

    /// pam_unix prompts for a password and sets PAM_AUTHTOK (then fails: the test user
    /// has none; `optional` ignores that); use_first_pass takes that token as the PIN.
    func testUseFirstPass_takesPAM_AUTHTOK_fromAStackedModule_andNeverPrompts() throws {
        try startDaemon()
        try registerAsUser()
        let service = try PAMServiceFile([
            "auth optional pam_unix.so nodelay",
            moduleLine("required", ["use_first_pass"]),
        ])
        let right = try pamtester(service, input: pin + "\n")
        XCTAssertTrue(right.succeeded, right.description)
        XCTAssertTrue(right.output.contains("Password: "), "pam_unix asked: \(right)")
        XCTAssertEqual(right.prompts, 0, right.description)
        let wrong = try pamtester(service, input: wrongPin + "\n")
        XCTAssertTrue(wrong.failed(with: PAMResult.authError), wrong.description)
        XCTAssertEqual(wrong.prompts, 0, "use_first_pass never asks: \(wrong)")
        // With no token at all (nothing stacked before it), use_first_pass has nothing to use.
        let none = try pamtester(try onlyModule(["use_first_pass"]), input: pin + "\n")
        XCTAssertTrue(none.failed(with: PAMResult.authInfoUnavailable), none.description)
    }

    func testTryFirstPass_triesTheToken_thenAsksOnceWhenItIsAWrongPin() throws {
        try startDaemon()
        try registerAsUser()
        let service = try PAMServiceFile([
            "auth optional pam_unix.so nodelay",
            moduleLine("required", ["try_first_pass"]),
        ])
        let outcome = try pamtester(service, input: wrongPin + "\n" + pin + "\n")
        XCTAssertTrue(outcome.succeeded, outcome.description)
        XCTAssertTrue(outcome.output.contains("Wrong PIN (4 attempts left)"), "the token was tried: \(outcome)")
        XCTAssertEqual(outcome.prompts, 1, outcome.description)
        XCTAssertTrue(try pamtester(service, input: pin + "\n").succeeded, "the right token needs no prompt")
    }

    /// A screen locker calls PAM as the user: the module then signs in only that user,
    /// with the user's own credential and without ownerUid (which the daemon would refuse).
    func testScreenLocker_asTheUser_signsInItsOwnCredential_withoutOwnerUid() throws {
        try startDaemon()
        try registerAsUser()
        let service = try onlyModule()
        let outcome = try pamtester(service, input: pin + "\n", asUser: true)
        XCTAssertTrue(outcome.succeeded, outcome.description)
        let line = daemon.log.split(separator: "\n").first { $0.contains("event=auth.ok") }
        XCTAssertTrue(line?.contains(" uid=\(user.uid)") == true, daemon.log)
        XCTAssertFalse(line?.contains("ownerUid") ?? true, "no ownerUid from a user: \(daemon.log)")
        let wrong = try pamtester(service, input: wrongPin + "\n", asUser: true)
        XCTAssertTrue(wrong.output.contains("Wrong PIN (4 attempts left)"), wrong.description)

        // As the user, another account's name is refused before anything is asked or sent.
        let other = try pamtester(service, user: "root", input: pin + "\n", asUser: true)
        XCTAssertTrue(other.failed(with: PAMResult.authInfoUnavailable), other.description)
        XCTAssertEqual(other.prompts, 0, other.description)
    }
}
