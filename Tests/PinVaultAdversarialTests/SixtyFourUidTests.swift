import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// One person holding 64 uids (a subordinate range: `/etc/subuid`, `newuidmap`) against
/// the per-uid limits that used to add up (SECURITY.md, "A user with many uids"): 64 × 16
/// sessions filled the 1024-session table; 64 × 32 agent connections, each holding most of
/// a 256 KiB frame, filled every connection but the admins' and locked ~516 MiB, past the
/// unit's `LimitMEMLOCK` (from there on secrets may reach swap). Another uid, and root,
/// must still unlock, sign and connect, and the daemon's `VmLck` stay under the limit.
///
/// Every assertion counts (answers, connections, KiB locked); none times anything, so
/// the suite holds on a loaded machine. The loop's share of signing time is counted in
/// `SessionTests` with the budget's own clock.
final class SixtyFourUidTests: XCTestCase {
    private static let uids = Array(UInt32(61001)...61064)
    /// A uid of someone else, who arrives after the 64.
    private static let other: UInt32 = 62000
    private static let pin = "258046"
    private var daemon: TestDaemon!

    override func setUpWithError() throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            try RootOnlySuites.skip(self, "other uids need root and setpriv") { XCTSkip($0) }
        }
    }

    override func tearDownWithError() throws {
        if let daemon, daemon.process != nil {
            XCTAssertEqual(try daemon.stop(), 0, daemon.log.suffix(3000).description)
        }
        daemon = nil
    }

    /// Runs `body` for each of `items`, eight at a time (each starts a process as a uid).
    private func eachConcurrently<T: Sendable, R: Sendable>(_ items: [T], _ body: @escaping @Sendable (T) throws -> R) throws -> [R] {
        let results = Results<R>(count: items.count)
        let slots = DispatchSemaphore(value: 8)
        let group = DispatchGroup()
        for (index, item) in items.enumerated() {
            slots.wait()
            DispatchQueue.global().async(group: group) {
                defer { slots.signal() }
                results.set(index, Result { try body(item) })
            }
        }
        group.wait()
        return try results.all()
    }

    func testSixtyFourUidsUnlockingAndSigning_leaveAnotherUidAndRoot_toUnlockAndSign() throws {
        daemon = try TestDaemon(overrides: ["credentials": ["max_per_user": "16"]])
        try daemon.start()
        let socket = daemon.socketPath
        let pin = Self.pin
        // Each uid: 16 credentials, each unlocked (sessions.max_per_uid = 16).
        let filled: [(keyIds: [String], unlocked: Int, refused: [String])] = try eachConcurrently(Self.uids) { uid in
            let calls: [(method: String, parameters: [String: Any])] =
                (0..<16).map { ("io.pinvault.Vault.Register", ["user": "k\($0)", "pin": pin]) }
                + (0..<16).map { ("io.pinvault.Vault.Unlock", ["user": "k\($0)", "pin": pin, "ttlSeconds": 600]) }
            let session = try ForeignPeer(socketPath: socket, uid: uid).session(calls, retryBusy: true)
            let keyIds = session.replies.prefix(16).compactMap { $0.object("credential")?["keyId"] as? String }
            let unlocks = session.replies.dropFirst(16)
            return (keyIds, unlocks.filter { $0.error == nil }.count, unlocks.compactMap(\.errorName))
        }
        let unlocked = filled.map(\.unlocked).reduce(0, +)
        print("64 uids: \(unlocked) sessions of the table's 1024; refusals: \(Set(filled.flatMap(\.refused)))")
        XCTAssertEqual(filled.map(\.keyIds.count).reduce(0, +), 64 * 16, "every registration")
        XCTAssertGreaterThan(unlocked, 512, "the uids did fill the table")
        XCTAssertEqual(Set(filled.flatMap(\.refused)), ["TooManySessions"], "a full share of the session table, and nothing else")

        // Someone else, and root, still unlock and sign.
        let other = ForeignPeer(socketPath: socket, uid: Self.other)
        let opened = try other.session([
            ("io.pinvault.Vault.Register", ["user": "me", "pin": pin]),
            ("io.pinvault.Vault.Unlock", ["user": "me", "pin": pin, "ttlSeconds": 600]),
        ])
        XCTAssertNil(opened.replies.last?.error, "another uid could not unlock: \(opened.replies)")
        let otherKey = try XCTUnwrap(opened.replies.last?.string("keyId"))
        let root = try daemon.connect()
        _ = try root.register(user: "root", pin: pin)
        let rootUnlock = try root.vault("Unlock", ["user": "root", "pin": pin, "ttlSeconds": 600])
        XCTAssertNil(rootUnlock.error, "root could not unlock: \(rootUnlock)")
        let rootKey = try XCTUnwrap(rootUnlock.string("keyId"))

        // The 64 sign as fast as they can, two connections each, while the other uid and
        // root sign: each of theirs is answered, every flooder's too.
        let keys = filled.map { $0.keyIds.first ?? "" }
        let flooding = DispatchGroup()
        let floods = Results<[String: Int]>(count: Self.uids.count)
        for (index, uid) in Self.uids.enumerated() {
            DispatchQueue.global().async(group: flooding) {
                floods.set(index, Result {
                    try ForeignPeer(socketPath: socket, uid: uid).flood(
                        "io.pinvault.Vault.Sign", ["keyId": keys[index], "challenge": "c2lnbiBtZQ=="], connections: 2, seconds: 3
                    )
                })
            }
        }
        let signs: [(method: String, parameters: [String: Any])] =
            Array(repeating: ("io.pinvault.Vault.Sign", ["keyId": otherKey, "challenge": "bWluZQ=="]), count: 20)
        let theirs = try other.session(signs)
        var roots: [String] = []
        for _ in 0..<20 {
            roots.append(try root.vault("Sign", ["keyId": rootKey, "challenge": "cm9vdA=="]).errorName ?? "ok")
        }
        flooding.wait()
        let counts = try floods.all()
        let flooded = counts.reduce(into: [String: Int]()) { total, one in total.merge(one, uniquingKeysWith: +) }
        print("64 uids flooding Sign: \(flooded); the other uid: \(theirs.replies.map { $0.errorName ?? "ok" }.filter { $0 != "ok" }.count) of 20 not signed")
        XCTAssertEqual(theirs.replies.count, 20)
        XCTAssertTrue(theirs.replies.allSatisfy { $0.error == nil && $0.string("signature") != nil }, "\(theirs.replies)")
        XCTAssertEqual(roots, Array(repeating: "ok", count: 20))
        XCTAssertGreaterThan(flooded["ok"] ?? 0, 0)
        XCTAssertEqual(Set(flooded.keys).subtracting(["ok", "unanswered"]), [], "\(flooded)")
        XCTAssertEqual(flooded["unanswered"] ?? 0, 0, "a flooder's call went unanswered")
    }

    func testSixtyFourUidsHoldingLargeAgentFrames_leaveAnotherUidAndRootAConnection_withinLimitMemlock() throws {
        daemon = try TestDaemon(overrides: ["server": ["max_connections": "2048"]])
        try daemon.start()
        let pid = try XCTUnwrap(daemon.pid)
        let baseline = try ProcessMemory(pid: pid).lockedKiB
        let agent = daemon.sshAgentSocketPath
        let holders = try eachConcurrently(Self.uids) { uid in
            try FrameHolder(uid: uid, socketPath: agent, connections: 32)
        }
        defer { holders.forEach { $0.release() } }
        let locked = try ProcessMemory(pid: pid).lockedKiB
        let opened = holders.map(\.opened).reduce(0, +), sent = holders.map(\.sent).reduce(0, +)
        let limitKiB = try Self.unitLimitMemlockKiB()
        print("64 uids: \(opened) of 2048 agent connections kept open, \(sent) with a 256 KiB frame read whole by the daemon; VmLck \(baseline) → \(locked) KiB (LimitMEMLOCK \(limitKiB) KiB)")
        XCTAssertGreaterThan(sent, 64, "the uids did get large frames read")
        XCTAssertLessThan(locked, limitKiB, "the daemon locked more than the unit allows: secrets may reach swap")

        let other = try ForeignUidClient(socketPath: daemon.socketPath, uid: Self.other).call("io.pinvault.Vault.GetPolicy")
        XCTAssertNil(other.error, "another uid could not connect: \(other)")
        let root = try daemon.connect().vault("GetPolicy")
        XCTAssertNil(root.error, "root could not connect: \(root)")
    }

    /// The unit's `LimitMEMLOCK=`, in KiB.
    private static func unitLimitMemlockKiB() throws -> Int {
        let unit = try String(contentsOfFile: TestDaemon.repositoryRoot + "/systemd/pinvaultd.service", encoding: .utf8)
        guard let line = unit.split(separator: "\n").first(where: { $0.hasPrefix("LimitMEMLOCK=") }),
              line.hasSuffix("M"), let mebibytes = Int(line.dropFirst("LimitMEMLOCK=".count).dropLast())
        else { throw TestKitError("no LimitMEMLOCK=<n>M in the unit") }
        return mebibytes * 1024
    }
}

/// Results filled in from several threads, by index.
private final class Results<R: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Result<R, any Error>?]

    init(count: Int) {
        values = Array(repeating: nil, count: count)
    }

    func set(_ index: Int, _ value: Result<R, any Error>) {
        lock.lock()
        values[index] = value
        lock.unlock()
    }

    func all() throws -> [R] {
        lock.lock()
        defer { lock.unlock() }
        return try values.map { value in
            guard let value else { throw TestKitError("a result is missing") }
            return try value.get()
        }
    }
}

/// A peer of `uid` that opens `connections` connections to the ssh-agent socket and on
/// each sends all but the last byte of a 256 KiB message (AGENT_MAX_LEN), waits until
/// the daemon has read what it sent (or closed the connection), reports, and holds them
/// open until released.
private final class FrameHolder: @unchecked Sendable {
    private let script: UidScript
    /// Connections the daemon kept open.
    let opened: Int
    /// Of those, the ones whose frame the daemon read whole.
    let sent: Int

    init(uid: UInt32, socketPath: String, connections: Int) throws {
        script = try UidScript(uid: uid, script: Self.script, arguments: [socketPath, String(connections)])
        let numbers = script.firstLine.split(separator: " ").compactMap { Int($0) }
        guard numbers.count == 2 else { throw TestKitError("the holder as uid \(uid) printed \(script.firstLine)") }
        (opened, sent) = (numbers[0], numbers[1])
    }

    func release() {
        script.release()
    }

    static let script = #"""
    import fcntl, select, socket, struct, sys, termios, time
    path, count = sys.argv[1], int(sys.argv[2])
    message = 256 * 1024
    frame = struct.pack(">I", message) + b"\x0b" * (message - 1)
    held = []
    for _ in range(count):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(60)
        try:
            s.connect(path)
            held.append(s)
        except OSError:
            s.close()
    opened = len(held)
    for s in held:
        try:
            s.sendall(frame)
        except OSError:
            pass
    # Wait until the daemon has read everything sent (nothing left in the send queue),
    # or closed the connection (refused at the door, or its frame refused memory).
    alive = sent = 0
    for s in held:
        deadline = time.monotonic() + 60
        closed = False
        while time.monotonic() < deadline:
            readable, _, _ = select.select([s], [], [], 0)
            if readable:
                try:
                    closed = s.recv(1) == b""
                except OSError:
                    closed = True
                if closed:
                    break
            queued = struct.unpack("i", fcntl.ioctl(s, termios.TIOCOUTQ, b"\0\0\0\0"))[0]
            if queued == 0:
                break
            time.sleep(0.05)
        if not closed:
            alive += 1
            if queued == 0:
                sent += 1
    print(alive, sent, flush=True)
    sys.stdin.read()
    """#
}
