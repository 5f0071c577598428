import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// Online guessing (SECURITY.md, "The lockout"): thousands of wrong PINs sent as fast as a client can,
/// pipelined on several connections, cost at most `max_attempts` Argon2id runs
/// (GetStats' `kdfEvaluations`), and leave the credential blocked or wiped.
final class OnlineGuessingTests: XCTestCase {
    private let pin = "258046"
    private let maxAttempts = 5
    private var daemon: TestDaemon!
    private var client: VarlinkClient!

    private var guesses: Int { Soak.scale(short: 10_000, long: 50_000) }

    override func tearDownWithError() throws {
        client = nil
        if let daemon, daemon.process != nil {
            XCTAssertEqual(try daemon.stop(), 0, daemon.log)
        }
        daemon = nil
    }

    private func start(_ lockout: [String: String]) throws {
        guard getuid() == 0 else { try RootOnlySuites.skip(self, "GetStats is for admins") { XCTSkip($0) } }
        daemon = try TestDaemon(overrides: ["lockout": lockout.merging(["max_attempts": "\(maxAttempts)"]) { $1 }])
        try daemon.start()
        client = try daemon.connect()
    }

    private func kdfEvaluations() throws -> Int {
        try counter("kdfEvaluations")
    }

    /// One of GetStats' counters.
    private func counter(_ name: String) throws -> Int {
        let counters = try XCTUnwrap(try client.succeeding("GetStats").object("counters"))
        return try XCTUnwrap((counters[name] as? NSNumber)?.intValue, "\(counters)")
    }

    private func guess(_ count: Int) throws -> [String: Int] {
        let started = Date()
        let answers = try PipelinedGuesser(socketPath: daemon.socketPath, user: "alice", connections: 4).guess(count)
        print("online guessing: \(count) guesses answered in \(String(format: "%.2f", Date().timeIntervalSince(started))) s: \(answers)")
        XCTAssertEqual(answers.values.reduce(0, +), count, "every guess is answered: \(answers)")
        return answers
    }

    func testThousandsOfWrongPins_runAtMostMaxAttemptsKDFs_andBlockTheCredential() throws {
        try start(["throttle_after": "\(maxAttempts)", "on_max_attempts": "\"block\""])
        let keyId = try XCTUnwrap(try client.register(user: "alice", pin: pin)["keyId"] as? String)
        let before = try kdfEvaluations()

        let answers = try guess(guesses)
        let ran = try kdfEvaluations() - before
        print("online guessing (block): \(ran) KDF evaluations for \(guesses) wrong PINs")
        XCTAssertLessThanOrEqual(ran, maxAttempts)
        XCTAssertEqual(ran, maxAttempts, "each counted attempt ran exactly one KDF")
        // Each counted guess answers from its own count, however the guesses settle:
        // the first max_attempts - 1 WrongPin, the last the block, all later ones
        // CredentialBlocked without a KDF; and the block is one lockout.
        XCTAssertEqual(answers["WrongPin", default: 0], maxAttempts - 1, "\(answers)")
        XCTAssertEqual(answers["CredentialBlocked", default: 0], guesses - (maxAttempts - 1), "\(answers)")
        XCTAssertEqual(try counter("lockouts"), 1, "one move into blocked")

        let blocked = try client.credential(keyId: keyId)
        XCTAssertEqual(blocked["state"] as? String, "blocked")
        XCTAssertEqual((blocked["failedAttempts"] as? NSNumber)?.intValue, maxAttempts)
        XCTAssertEqual(try client.authenticate(user: "alice", pin: pin).errorName, "CredentialBlocked", "even the right PIN")
        XCTAssertEqual(try kdfEvaluations() - before, maxAttempts, "a blocked credential runs no KDF")
    }

    func testThousandsOfWrongPins_runAtMostMaxAttemptsKDFs_andWipeTheCredential() throws {
        try start(["throttle_after": "\(maxAttempts)", "on_max_attempts": "\"wipe\""])
        try client.register(user: "alice", pin: pin)
        let before = try kdfEvaluations()

        let answers = try guess(guesses)
        let ran = try kdfEvaluations() - before
        print("online guessing (wipe): \(ran) KDF evaluations for \(guesses) wrong PINs")
        XCTAssertLessThanOrEqual(ran, maxAttempts)
        // A counted guess that settles after the wiping one finds the credential gone
        // and answers NoSuchCredential; none answers anything else.
        XCTAssertLessThanOrEqual(answers["WrongPin", default: 0], maxAttempts - 1, "\(answers)")
        XCTAssertEqual(answers["CredentialWiped"], 1, "exactly one call wipes: \(answers)")
        XCTAssertEqual(answers["WrongPin", default: 0] + 1 + answers["NoSuchCredential", default: 0], guesses, "\(answers)")
        XCTAssertEqual(try client.list().count, 0)
        XCTAssertEqual(try counter("lockouts"), 1, "one wipe")
    }

    /// With throttling, the guesses during each wait answer LockedOut without a KDF;
    /// guessing on until the block still costs exactly `max_attempts` KDF runs.
    func testThrottledGuessing_answersLockedOut_withoutAKDF_untilTheBlock() throws {
        try start(["throttle_after": "3", "throttle_base_seconds": "1", "throttle_max_seconds": "2", "on_max_attempts": "\"block\""])
        let keyId = try XCTUnwrap(try client.register(user: "alice", pin: pin)["keyId"] as? String)
        let before = try kdfEvaluations()

        var total: [String: Int] = [:]
        let deadline = Date().addingTimeInterval(20)
        repeat {
            total.merge(try guess(Soak.scale(short: 2_000, long: 10_000))) { $0 + $1 }
        } while total["CredentialBlocked", default: 0] == 0 && Date() < deadline
        let ran = try kdfEvaluations() - before
        print("online guessing (throttled): \(ran) KDF evaluations for \(total.values.reduce(0, +)) wrong PINs: \(total)")
        XCTAssertEqual(ran, maxAttempts)
        XCTAssertEqual(total["WrongPin", default: 0], maxAttempts - 1, "\(total)")
        XCTAssertEqual(try counter("lockouts"), 3, "throttled after the 3rd and the 4th failure, blocked at the 5th")
        // The guesses never stop, so some arrive during each of the two waits, and
        // every one of those is answered LockedOut (and runs no KDF: `ran` above);
        // how many depends on the machine's speed, so only the kind is checked.
        XCTAssertGreaterThanOrEqual(total["LockedOut", default: 0], 2, "each wait answered LockedOut: \(total)")
        XCTAssertEqual(Set(total.keys).subtracting(["WrongPin", "LockedOut", "CredentialBlocked"]), [],
                       "nothing but WrongPin, LockedOut and the block: \(total)")
        XCTAssertEqual(try client.credential(keyId: keyId)["state"] as? String, "blocked")
    }
}
