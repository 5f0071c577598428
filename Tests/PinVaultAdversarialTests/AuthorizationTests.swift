import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// Authorization (SECURITY.md, "Another local user") with three real uids besides root, each a peer run
/// through `setpriv`: nothing of one uid is visible, usable or deletable by another
/// (NoSuchCredential, never an existence oracle); admin-only methods refuse
/// non-admins; `allowed_groups` refuses outsiders at connect; `admin_group` members
/// are admins.
final class AuthorizationTests: XCTestCase {
    private static let owner: UInt32 = 60201
    private static let thief: UInt32 = 60202
    private static let neighbour: UInt32 = 60203
    /// Debian's `adm` and `staff` groups.
    private static let adm: UInt32 = 4
    private static let staff: UInt32 = 50

    private let pin = "258046"
    private let otherPin = "370591"
    private var daemon: TestDaemon!

    override func setUpWithError() throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            try RootOnlySuites.skip(self, "other uids need root and setpriv") { XCTSkip($0) }
        }
    }

    override func tearDownWithError() throws {
        if let daemon, daemon.process != nil {
            XCTAssertEqual(try daemon.stop(), 0, daemon.log)
        }
        daemon = nil
    }

    private func start(_ overrides: [String: [String: String]] = [:]) throws {
        daemon = try TestDaemon(overrides: overrides)
        try daemon.start()
    }

    private func peer(_ uid: UInt32, gid: UInt32? = nil, groups: [UInt32] = []) -> ForeignPeer {
        ForeignPeer(socketPath: daemon.socketPath, uid: uid, gid: gid, groups: groups)
    }

    private func calls(_ peer: ForeignPeer, _ calls: [(String, [String: Any])]) throws -> [VarlinkResponse] {
        let session = try peer.session(calls.map { (VarlinkClient.vault + "." + $0.0, $0.1) })
        XCTAssertFalse(session.closedEarly, "uid \(peer.uid) was cut off")
        XCTAssertEqual(session.replies.count, calls.count)
        return session.replies
    }

    private func errorNames(_ replies: [VarlinkResponse]) -> [String] {
        replies.map { $0.errorName ?? "ok" }
    }

    /// Every method another uid could aim at `user`'s credentials `keyId` and `pendingKeyId`.
    private func theft(user: String, keyId: String, pendingKeyId: String, token: String, victim: UInt32) -> [(String, [String: Any])] {
        let challenge = Data("steal".utf8).base64EncodedString()
        return [
            ("Authenticate", ["user": user, "pin": pin, "challenge": challenge]),
            ("Authenticate", ["user": user, "keyId": keyId, "pin": pin, "challenge": challenge]),
            ("ChangePin", ["user": user, "keyId": keyId, "currentPin": pin, "newPin": otherPin]),
            ("BeginUnregister", ["user": user, "keyId": keyId, "pin": pin]),
            ("CommitUnregister", ["keyId": pendingKeyId, "token": token]),
            ("AbortUnregister", ["keyId": pendingKeyId, "token": token]),
            ("Wipe", ["user": user, "keyId": keyId, "pin": pin]),
            ("Unblock", ["ownerUid": Int(victim), "user": user, "keyId": keyId]),
            ("Reset", ["confirm": "RESET"]),
            ("GetStats", [:]),
            ("List", ["ownerUid": Int(victim)]),
            ("Wipe", ["user": user, "pin": pin, "ownerUid": Int(victim)]),
            ("Wipe", ["user": user]),
            ("BeginUnregister", ["user": user, "keyId": keyId]),
        ]
    }

    private static let theftAnswers = Array(repeating: "NoSuchCredential", count: 7)
        + Array(repeating: "PermissionDenied", count: 7)

    func testNothingOfOneUid_isVisibleUsableOrDeletable_byTwoOthers() throws {
        try start()
        let owner = peer(Self.owner)
        let setup = try calls(owner, [
            ("Register", ["user": "shared", "pin": pin]),
            ("Register", ["user": "shared", "pin": pin, "label": "to unregister"]),
        ])
        let keyId = try XCTUnwrap(setup[0].object("credential")?["keyId"] as? String, "\(setup)")
        let pendingKeyId = try XCTUnwrap(setup[1].object("credential")?["keyId"] as? String, "\(setup)")
        let begun = try calls(owner, [("BeginUnregister", ["user": "shared", "keyId": pendingKeyId, "pin": pin])])[0]
        let token = try XCTUnwrap(begun.string("token"), begun.description)
        let expiresAt = try XCTUnwrap(begun.string("expiresAt"))

        // The neighbour holds a credential of the same user name; the thief holds none.
        let neighbourOwn = try calls(peer(Self.neighbour), [("Register", ["user": "shared", "pin": otherPin])])[0]
        let neighbourKeyId = try XCTUnwrap(neighbourOwn.object("credential")?["keyId"] as? String)

        for uid in [Self.thief, Self.neighbour] {
            let listed = try calls(peer(uid), [("List", [:]), ("List", ["user": "shared"])])
            let visible = listed.flatMap { ($0["credentials"] as? [[String: Any]]) ?? [] }.compactMap { $0["keyId"] as? String }
            XCTAssertEqual(Set(visible), uid == Self.neighbour ? [neighbourKeyId] : [], "uid \(uid) sees only its own")

            let answers = try calls(peer(uid), theft(user: "shared", keyId: keyId, pendingKeyId: pendingKeyId, token: token, victim: Self.owner))
            let names = answers.map { $0.error.map { String($0.split(separator: ".").last ?? "") } ?? "ok" }
            // The neighbour's own single-credential calls by user would hit its own
            // credential, so both aim at the owner's keyIds; keyId-less Authenticate of
            // the neighbour authenticates itself with the wrong PIN, nothing of the owner.
            var expected = Self.theftAnswers
            if uid == Self.neighbour { expected[0] = "WrongPin" }
            XCTAssertEqual(names, expected, "uid \(uid): \(answers)")
        }

        // The owner's credentials are untouched: no failure counted, still pending with
        // the same expiry, and the owner's token still works.
        let after = try calls(owner, [
            ("List", [:]),
            ("Authenticate", ["user": "shared", "keyId": keyId, "pin": pin, "challenge": "AA=="]),
            ("CommitUnregister", ["keyId": pendingKeyId, "token": token]),
            ("List", [:]),
        ])
        let before = try XCTUnwrap(after[0]["credentials"] as? [[String: Any]])
        let active = try XCTUnwrap(before.first { $0["keyId"] as? String == keyId })
        XCTAssertEqual((active["failedAttempts"] as? NSNumber)?.intValue, 0)
        XCTAssertEqual(active["state"] as? String, "active")
        let pending = try XCTUnwrap(before.first { $0["keyId"] as? String == pendingKeyId })
        XCTAssertEqual(pending["state"] as? String, "pendingUnregistration")
        XCTAssertEqual(pending["unregistrationExpiresAt"] as? String, expiresAt)
        XCTAssertEqual(errorNames(Array(after[1...2])), ["ok", "ok"])
        XCTAssertEqual((after[3]["credentials"] as? [[String: Any]])?.compactMap { $0["keyId"] as? String }, [keyId])
        let neighbourAfter = try calls(peer(Self.neighbour), [("List", [:])])[0]
        XCTAssertEqual((neighbourAfter["credentials"] as? [[String: Any]])?.first?["failedAttempts"] as? NSNumber, 1,
                       "only the neighbour's own wrong-PIN call counted against it")
    }

    func testAllowedGroups_refusesOutsidersAtConnect_andLetsMembersIn() throws {
        try start(["access": ["allowed_groups": "[\"staff\"]"]])
        let policy = [(VarlinkClient.vault + ".GetPolicy", [String: Any]())]

        let outsider = try peer(Self.thief).session(policy)
        XCTAssertTrue(outsider.closedEarly, "an outsider must be refused at connect")
        XCTAssertEqual(outsider.replies.count, 0)

        for member in [peer(Self.thief, groups: [Self.staff]), peer(Self.neighbour, gid: Self.staff)] {
            let session = try member.session(policy)
            XCTAssertFalse(session.closedEarly, "uid \(member.uid) gid \(member.gid) groups \(member.groups) is a member")
            XCTAssertNotNil(session.replies.first?.object("policy"), "\(session.replies)")
        }
        XCTAssertNotNil(try daemon.connect().vault("GetPolicy").object("policy"), "root is let in")
    }

    func testAdminGroupMembers_haveTheAdminPowers_andNonMembersDoNot() throws {
        try start([
            "access": ["admin_group": "\"adm\""],
            "lockout": ["throttle_after": "3", "max_attempts": "3"],
        ])
        let owner = peer(Self.owner)
        let registered = try calls(owner, [("Register", ["user": "bob", "pin": pin])])[0]
        let keyId = try XCTUnwrap(registered.object("credential")?["keyId"] as? String)
        let wrong: (String, [String: Any]) = ("Authenticate", ["user": "bob", "pin": "999999", "challenge": "AA=="])
        XCTAssertEqual(errorNames(try calls(owner, [wrong, wrong, wrong])), ["WrongPin", "WrongPin", "CredentialBlocked"])

        let adminCalls: [(String, [String: Any])] = [
            ("List", ["ownerUid": Int(Self.owner)]),
            ("Unblock", ["ownerUid": Int(Self.owner), "user": "bob", "keyId": keyId]),
            ("GetStats", [:]),
        ]
        let outsider = try calls(peer(Self.neighbour, groups: [Self.staff]), adminCalls)
        XCTAssertEqual(errorNames(outsider), Array(repeating: "PermissionDenied", count: 3))

        let admin = peer(Self.thief, groups: [Self.adm])
        let answers = try calls(admin, adminCalls + [
            ("Wipe", ["user": "bob", "ownerUid": Int(Self.owner)]),
            ("Reset", ["confirm": "RESET"]),
        ])
        XCTAssertEqual(errorNames(answers), ["ok", "ok", "ok", "ok", "ok"], "\(answers)")
        XCTAssertEqual((answers[0]["credentials"] as? [[String: Any]])?.first?["state"] as? String, "blocked")
        XCTAssertEqual(answers[1].object("credential")?["state"] as? String, "active")
        XCTAssertEqual(answers[3].strings("deletedKeyIds"), [keyId])
        XCTAssertEqual(answers[4].int("deletedCount"), 0)

        let primary = try calls(peer(Self.neighbour, gid: Self.adm), [("GetStats", [:])])
        XCTAssertEqual(errorNames(primary), ["ok"], "a primary group counts too")
    }
}
