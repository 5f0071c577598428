import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// Every interleaving (RELIABILITY.md): many connections of two uids — the owner and
/// root, which signs the owner in as the PAM module does (`ownerUid`) — send right and
/// wrong PINs, unlocks, PIN changes and unregistrations to one credential at once, on
/// schedules drawn from a printed seed (`PINVAULT_INTERLEAVING_SEED` replays them;
/// the threads' interleaving is the machine's). Rounds take turns (`Round`): mixed;
/// sign-ins beside guesses (the review's case); hostile, which blocks the credential.
/// An oracle reads the answers:
/// - every wrong PIN answered (WrongPin, and the CredentialBlocked of the one that
///   blocked: the daemon's `lockouts`) is reported to the owner by exactly one success
///   (`failedAttemptsCleared`): in each round, the wrong PINs answered equal the wrong
///   PINs reported, the round's closing sign-in reporting what is still counted;
/// - nothing succeeds on a blocked credential: once a round left it blocked, right
///   PINs of both uids by every call at once are all refused, and count nothing;
/// - the daemon's own tally (GetStats `authenticationsFailed`) matches the answers.
///
/// Root only (the owner is another uid, through setpriv).
final class InterleavingOracleTests: XCTestCase {
    static let pinA = "258046", pinB = "370591", wrongPin = "999999"
    static let maxAttempts = 6
    static let user = "alice"

    /// One answered call, from either uid.
    struct Answer {
        let connection: String
        let method: String
        let error: String?
        let failedAttemptsCleared: Int?
        /// CLOCK_MONOTONIC, shared by every process on the machine: the order of a
        /// receipt and a later send is causal, whatever the threads did.
        let sent: UInt64
        let received: UInt64
    }

    /// What the rounds found.
    struct Tally {
        var rounds = 0, calls = 0, wrongAnswered = 0, reported = 0, blocks = 0, successes = 0
        var findings: [String] = []
    }

    func testConcurrentPinsOfTwoUids_everyWrongPinIsCountedOrReported_andNothingAfterABlockSucceeds() throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            try RootOnlySuites.skip(self, "the interleaving oracle needs root and setpriv for a second uid") { XCTSkip($0) }
        }
        let seed = SeededGenerator.seed(from: "PINVAULT_INTERLEAVING_SEED", fallback: 31)
        let rounds = CrashSweepTests.isFull ? 60 : 6
        print("interleaving oracle: seed \(seed) (PINVAULT_INTERLEAVING_SEED=\(seed) replays these schedules), \(rounds) rounds")
        var generator = SeededGenerator(seed: seed)
        let owner = UInt32.random(in: 62_000..<63_000, using: &generator)
        let daemon = try TestDaemon(overrides: [
            "lockout": ["throttle_after": "\(Self.maxAttempts)", "max_attempts": "\(Self.maxAttempts)"],
            // Four KDF threads and a KDF of some length: PIN checks overlap.
            "kdf": ["opslimit": "1", "memlimit_kib": "1024", "allow_weak": "true", "max_parallel": "4"],
        ])
        try daemon.start()
        let registered = try ForeignUidClient(socketPath: daemon.socketPath, uid: owner)
            .call("io.pinvault.Vault.Register", ["user": Self.user, "pin": Self.pinA])
        XCTAssertNil(registered.error, "\(registered)")
        let admin = try daemon.connect()
        var tally = Tally()
        let statsBefore = try Self.stats(admin)
        var current = Self.pinA
        for round in 1...rounds {
            let kind = Round.allCases[round % Round.allCases.count]
            var schedules = (0..<4).map { _ in Self.ownerSchedule(&generator, hostile: kind == .hostile) }
            var rootSchedules = (0..<2).map { _ in Self.rootSchedule(&generator, owner: owner, hostile: kind == .hostile) }
            if kind == .signInsUnderGuessing {
                // One connection signs the owner in with the PIN that opens now, one at a
                // time; two others guess: only an erased wrong PIN can unbalance this.
                schedules = [Self.signIns(current)] + Array(schedules.prefix(1)).map { _ in Self.guesses() }
                rootSchedules = [Self.guesses(ownerUid: owner)]
            }
            let lockoutsBefore = try Self.stats(admin).lockouts
            var answers = try Self.run(daemon: daemon, owner: owner, schedules: schedules, rootSchedules: rootSchedules)
            // Quiet now: the wrong PINs that blocked are the lockouts the daemon counted.
            let blocking = try Self.stats(admin).lockouts - lockoutsBefore
            try Self.checkBlockHolds(daemon: daemon, admin: admin, owner: owner, round: round, into: &tally)
            let closing = try Self.close(admin, owner: owner)
            answers += closing.answers
            current = closing.pin
            tally.rounds += 1
            Self.judge(answers, blocking: blocking, round: round, into: &tally)
            if !tally.findings.isEmpty { break }
        }
        let statsAfter = try Self.stats(admin)
        if tally.findings.isEmpty && statsAfter.failed - statsBefore.failed != tally.wrongAnswered {
            tally.findings.append("GetStats counted \(statsAfter.failed - statsBefore.failed) wrong PINs; \(tally.wrongAnswered) were answered")
        }
        print("interleaving oracle: \(tally.rounds) rounds, \(tally.calls) calls of 2 uids on 6 connections at once, "
            + "\(tally.wrongAnswered) wrong PINs answered, \(tally.reported) reported by \(tally.successes) successes, "
            + "\(tally.blocks) blocks; seed \(seed)")
        let line = "interleaving: \(tally.rounds) rounds, \(tally.calls) calls, \(tally.wrongAnswered) wrong PINs answered, "
            + "\(tally.reported) reported, \(tally.blocks) blocks, \(tally.findings.count) findings (seed \(seed))"
        print(line)
        if let path = ProcessInfo.processInfo.environment["PINVAULT_INTERLEAVING_SUMMARY"], !path.isEmpty {
            try (line + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        }
        XCTAssert(tally.findings.isEmpty, "seed \(seed):\n" + tally.findings.joined(separator: "\n"))
        admin.close()
        XCTAssertEqual(try daemon.stop(), 0, daemon.log.suffix(3000).description)
    }

    // MARK: Schedules

    /// A or B (one of them is the current PIN) or a wrong one: half wrong, or nine in
    /// ten in a hostile round (which blocks the credential).
    private static func pin(_ generator: inout SeededGenerator, hostile: Bool) -> String {
        if hostile && Int.random(in: 0..<10, using: &generator) < 9 { return wrongPin }
        return [pinA, pinB, wrongPin, wrongPin].randomElement(using: &generator) ?? wrongPin
    }

    /// The owner's calls: Authenticate, Unlock, ChangePin between A and B (one of the two
    /// is the current PIN), BeginUnregister (aborted at once by the helper when it succeeds).
    static func ownerSchedule(_ generator: inout SeededGenerator, hostile: Bool) -> [[String: Any]] {
        (0..<12).map { _ in
            let pin = pin(&generator, hostile: hostile)
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<4:
                return ["method": "Authenticate", "parameters": ["user": user, "pin": pin, "challenge": "Y2hhbGxlbmdl"]]
            case 4..<6:
                return ["method": "Unlock", "parameters": ["user": user, "pin": pin, "ttlSeconds": 30]]
            case 6..<8:
                let new = Bool.random(using: &generator) ? pinA : pinB
                let current = hostile ? pin : new == pinA ? pinB : pinA
                return ["method": "ChangePin", "parameters": ["user": user, "currentPin": current, "newPin": new]]
            default:
                return ["method": "BeginUnregister", "parameters": ["user": user, "pin": pin]]
            }
        }
    }

    /// The kinds of round, in turn.
    enum Round: CaseIterable {
        /// Half the PINs wrong, every call.
        case mixed
        /// Sign-ins with the right PIN on one connection, wrong PINs on two others: the
        /// review's case (a right PIN erasing wrong PINs counted beside it).
        case signInsUnderGuessing
        /// Nine PINs in ten wrong: the credential blocks.
        case hostile
    }

    static func signIns(_ pin: String) -> [[String: Any]] {
        (0..<12).map { index in
            index % 2 == 0
                ? ["method": "Authenticate", "parameters": ["user": user, "pin": pin, "challenge": "Y2hhbGxlbmdl"]]
                : ["method": "Unlock", "parameters": ["user": user, "pin": pin, "ttlSeconds": 30]]
        }
    }

    static func guesses(ownerUid: UInt32? = nil) -> [[String: Any]] {
        var parameters: [String: Any] = ["user": user, "pin": wrongPin, "challenge": "Y2hhbGxlbmdl"]
        if let ownerUid { parameters["ownerUid"] = Int(ownerUid) }
        return Array(repeating: ["method": "Authenticate", "parameters": parameters], count: 12)
    }

    /// Root's calls: the owner's sign-in as the PAM module makes it.
    static func rootSchedule(_ generator: inout SeededGenerator, owner: UInt32, hostile: Bool) -> [[String: Any]] {
        (0..<12).map { _ in
            ["method": "Authenticate", "parameters": [
                "user": user, "pin": pin(&generator, hostile: hostile), "challenge": "Y2hhbGxlbmdl", "ownerUid": Int(owner),
            ] as [String: Any]]
        }
    }

    // MARK: Running a round

    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Runs the owner's schedules in a helper of that uid and root's here, all released
    /// at once once every connection is open; returns every answer.
    static func run(
        daemon: TestDaemon, owner: UInt32, schedules: [[[String: Any]]], rootSchedules: [[[String: Any]]]
    ) throws -> [Answer] {
        let helper = Process()
        helper.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        helper.arguments = ["--reuid=\(owner)", "--regid=\(owner)", "--clear-groups", "--", "/usr/bin/python3", "-c", helperScript]
        let input = Pipe(), output = Pipe()
        helper.standardInput = input
        helper.standardOutput = output
        try helper.run()
        let request = try JSONSerialization.data(withJSONObject: ["socket": daemon.socketPath, "schedules": schedules])
        try input.fileHandleForWriting.write(contentsOf: request + Data("\n".utf8))
        let reader = output.fileHandleForReading
        guard readLine(reader) == "ready" else { throw TestKitError("the owner's helper did not connect") }
        let roots = try rootSchedules.map { _ in try daemon.connect() }
        let collected = Collected()
        let group = DispatchGroup()
        try input.fileHandleForWriting.write(contentsOf: Data("go\n".utf8))
        for (index, (client, schedule)) in zip(roots, rootSchedules).enumerated() {
            // Handed over: only this thread uses them from here on.
            nonisolated(unsafe) let client = client, schedule = schedule
            DispatchQueue.global().async(group: group) {
                for call in schedule {
                    let method = call["method"] as? String ?? ""
                    let sent = now()
                    do {
                        let reply = try client.vault(method, call["parameters"] as? [String: Any] ?? [:])
                        collected.add(Answer(
                            connection: "root-\(index)", method: method, error: reply.errorName,
                            failedAttemptsCleared: reply.int("failedAttemptsCleared"), sent: sent, received: now()))
                    } catch {
                        collected.fail("root-\(index) \(method): \(error)")
                        return
                    }
                }
            }
        }
        let owned = reader.readDataToEndOfFile()
        helper.waitUntilExit()
        group.wait()
        roots.forEach { $0.close() }
        guard helper.terminationStatus == 0 else { throw TestKitError("the owner's helper failed (\(helper.terminationStatus))") }
        guard collected.failures.isEmpty else { throw TestKitError(collected.failures.joined(separator: "\n")) }
        var answers = collected.answers
        guard let records = try JSONSerialization.jsonObject(with: owned) as? [[String: Any]] else {
            throw TestKitError("the owner's helper printed no answers")
        }
        for record in records {
            let error = (record["error"] as? String).map { String($0.split(separator: ".").last ?? "") }
            answers.append(Answer(
                connection: "owner-\(record["connection"] ?? "?")", method: record["method"] as? String ?? "",
                error: error, failedAttemptsCleared: (record["failedAttemptsCleared"] as? NSNumber)?.intValue,
                sent: (record["sent"] as? NSNumber)?.uint64Value ?? 0, received: (record["received"] as? NSNumber)?.uint64Value ?? 0))
        }
        return answers
    }

    /// What root's threads answered, under a lock.
    final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var answered: [Answer] = [], failed: [String] = []
        func add(_ answer: Answer) { lock.withLock { answered.append(answer) } }
        func fail(_ text: String) { lock.withLock { failed.append(text) } }
        var answers: [Answer] { lock.withLock { answered } }
        var failures: [String] { lock.withLock { failed } }
    }

    private static func readLine(_ handle: FileHandle) -> String {
        var line = Data()
        while let byte = try? handle.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) { line.append(byte) }
        return String(decoding: line, as: UTF8.self)
    }

    /// After the round, alone: unblocks a blocked credential (the admin's Unblock keeps
    /// the wrong PINs for the owner to hear of) and signs the owner in, with A then B:
    /// that success reports every wrong PIN still counted.
    static func close(_ admin: VarlinkClient, owner: UInt32) throws -> (answers: [Answer], pin: String) {
        var answers: [Answer] = []
        guard let credential = try admin.list(ownerUid: Int(owner)).first, let keyId = credential["keyId"] as? String else {
            throw TestKitError("the credential is gone")
        }
        if credential["state"] as? String == "blocked" {
            let reply = try admin.vault("Unblock", ["ownerUid": Int(owner), "user": user, "keyId": keyId])
            if reply.error != nil { throw TestKitError("Unblock: \(reply)") }
        }
        for pin in [pinA, pinB] {
            let sent = now()
            let reply = try admin.vault("Authenticate", ["user": user, "pin": pin, "challenge": "Y2hhbGxlbmdl", "ownerUid": Int(owner)])
            answers.append(Answer(
                connection: "closing", method: "Authenticate", error: reply.errorName,
                failedAttemptsCleared: reply.int("failedAttemptsCleared"), sent: sent, received: now()))
            if reply.error == nil { return (answers, pin) }
        }
        throw TestKitError("neither PIN opens the credential after the round: \(answers)")
    }

    /// The daemon's tallies: wrong PINs counted (`authenticationsFailed`) and lockouts.
    private static func stats(_ admin: VarlinkClient) throws -> (failed: Int, lockouts: Int) {
        guard let counters = try admin.succeeding("GetStats").object("counters"),
              let failed = (counters["authenticationsFailed"] as? NSNumber)?.intValue,
              let lockouts = (counters["lockouts"] as? NSNumber)?.intValue
        else { throw TestKitError("GetStats gave no authenticationsFailed or lockouts") }
        return (failed, lockouts)
    }

    /// When the round left the credential blocked: every right PIN, from every connection
    /// of both uids at once and by every call, is refused (CredentialBlocked) and counts
    /// nothing. (A CredentialBlocked answered during the round may have been a refusal
    /// while another call's attempt was counted and not yet settled, so the block is
    /// judged here, once the daemon is quiet.)
    static func checkBlockHolds(daemon: TestDaemon, admin: VarlinkClient, owner: UInt32, round: Int, into tally: inout Tally) throws {
        guard let before = try admin.list(ownerUid: Int(owner)).first, before["state"] as? String == "blocked" else { return }
        let rightPins: [[String: Any]] = [pinA, pinB].flatMap { pin -> [[String: Any]] in
            let other = pin == pinA ? pinB : pinA
            return [
                ["method": "Authenticate", "parameters": ["user": user, "pin": pin, "challenge": "Y2hhbGxlbmdl"]],
                ["method": "Unlock", "parameters": ["user": user, "pin": pin, "ttlSeconds": 30]],
                ["method": "ChangePin", "parameters": ["user": user, "currentPin": pin, "newPin": other]],
                ["method": "BeginUnregister", "parameters": ["user": user, "pin": pin]],
            ]
        }
        let rootPins: [[String: Any]] = [pinA, pinB].map { pin in
            ["method": "Authenticate", "parameters": [
                "user": user, "pin": pin, "challenge": "Y2hhbGxlbmdl", "ownerUid": Int(owner),
            ] as [String: Any]]
        }
        let answers = try run(daemon: daemon, owner: owner, schedules: Array(repeating: rightPins, count: 4), rootSchedules: [rootPins, rootPins])
        tally.calls += answers.count
        let notRefused = answers.filter { $0.error != "CredentialBlocked" }
        if !notRefused.isEmpty {
            tally.findings.append("round \(round): blocked, yet \(notRefused.count) right PINs were not refused: "
                + notRefused.prefix(8).map { "\($0.connection) \($0.method) \($0.error ?? "succeeded")" }.joined(separator: ", "))
        }
        let after = try admin.list(ownerUid: Int(owner)).first
        if after?["failedAttempts"] as? Int != before["failedAttempts"] as? Int || after?["state"] as? String != "blocked" {
            tally.findings.append("round \(round): right PINs sent to a blocked credential moved it: \(before) became \(after ?? [:])")
        }
    }

    // MARK: The oracle

    /// `blocking`: the wrong PINs of the round that blocked the credential (the daemon's
    /// lockouts; the other CredentialBlocked answers were refused before any check).
    static func judge(_ answers: [Answer], blocking: Int, round: Int, into tally: inout Tally) {
        let pinCalls: Set = ["Authenticate", "Unlock", "ChangePin", "BeginUnregister"]
        let pinAnswers = answers.filter { pinCalls.contains($0.method) }
        let wrong = pinAnswers.filter { $0.error == "WrongPin" }.count
        let blocked = pinAnswers.filter { $0.error == "CredentialBlocked" }.count
        let successes = pinAnswers.filter { $0.error == nil }
        let reported = successes.compactMap(\.failedAttemptsCleared).reduce(0, +)
        let answered = wrong + blocking
        tally.calls += answers.count
        tally.wrongAnswered += answered
        tally.reported += reported
        tally.blocks += blocking
        tally.successes += successes.count
        if blocking > blocked {
            tally.findings.append("round \(round): \(blocking) lockouts counted, \(blocked) CredentialBlocked answered")
        }
        let what = "\(answered) wrong PINs answered (\(wrong) WrongPin, \(blocking) blocking), \(reported) reported by \(successes.count) successes"
        if answered > reported {
            tally.findings.append("round \(round): \(what): \(answered - reported) wrong PINs erased, neither counted nor reported")
        } else if answered < reported {
            tally.findings.append("round \(round): \(what): \(reported - answered) reported twice, or right PINs reported as wrong")
        }
        if successes.contains(where: { $0.failedAttemptsCleared == nil }) {
            tally.findings.append("round \(round): a success without failedAttemptsCleared")
        }
    }

    /// The owner's side: one connection per schedule, all opened before "ready"; each
    /// call timed on CLOCK_MONOTONIC; a BeginUnregister that succeeds is aborted at once
    /// on its connection. Prints every answer as one JSON array at the end.
    static let helperScript = #"""
    import json, socket, sys, threading, time
    request = json.loads(sys.stdin.readline())
    connections = []
    for _ in request["schedules"]:
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.settimeout(120)
        c.connect(request["socket"])
        connections.append(c)
    print("ready", flush=True)
    sys.stdin.readline()
    lock = threading.Lock()
    answers = []
    def call(c, pending, method, parameters):
        c.sendall(json.dumps({"method": "io.pinvault.Vault." + method, "parameters": parameters}).encode() + b"\0")
        while b"\0" not in pending[0]:
            chunk = c.recv(65536)
            if not chunk:
                raise EOFError("connection closed by the daemon")
            pending[0] += chunk
        frame, _, pending[0] = pending[0].partition(b"\0")
        return json.loads(frame)
    def run(index, c, schedule):
        pending = [b""]
        for entry in schedule:
            sent = time.monotonic_ns()
            reply = call(c, pending, entry["method"], entry["parameters"])
            received = time.monotonic_ns()
            parameters = reply.get("parameters", {})
            with lock:
                answers.append({"connection": index, "method": entry["method"], "error": reply.get("error"),
                                "failedAttemptsCleared": parameters.get("failedAttemptsCleared"),
                                "sent": sent, "received": received})
            if entry["method"] == "BeginUnregister" and "error" not in reply:
                aborted = call(c, pending, "AbortUnregister", {"keyId": parameters["keyId"], "token": parameters["token"]})
                if "error" in aborted:
                    raise RuntimeError("AbortUnregister: %r" % aborted)
    threads = [threading.Thread(target=run, args=(i, c, s)) for i, (c, s) in enumerate(zip(connections, request["schedules"]))]
    for t in threads: t.start()
    for t in threads: t.join()
    if len(answers) != sum(len(s) for s in request["schedules"]):
        sys.exit("a connection stopped early")
    print(json.dumps(answers), flush=True)
    """#
}
