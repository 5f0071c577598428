import Foundation
import Glibc
import PinVaultCrypto
import PinVaultTestKit
import XCTest

/// SECURITY.md, "Memory hygiene": the daemon's memory holds no copy of any PIN, token,
/// seed, Argon2id output or box key once the request that used it is done. Read as
/// root from outside, through /proc/PID/mem, the way an attacker who gets hold of a
/// memory image (a core dump, a swapped page, a debugger) would; and the daemon lets
/// nobody else take such an image.
///
/// The debug daemon of this build and the release daemon users run (`make test` builds
/// it) go through the same run: every method that takes a PIN or a token, and every
/// way a PIN reaches the input buffer; then three scans — right after (once the
/// engine reports no work), during an Argon2id of production-like cost (caught in
/// flight: the scan ends before the last reply comes, else it is made again over twice
/// the KDF work, so that a slow scan on a busy machine is repeated, never passed or
/// failed by the clock), and after `server.idle_timeout_seconds`
/// has closed every connection. The needles: each PIN (plain and JSON-escaped), each
/// token (text and bytes), and, derived in this test from every row the run stored,
/// the pepper and each PIN as docs/FORMAT.md allows, each Argon2id output, box key and
/// bare seed; also 32 bytes before a public key that derive it (libsodium's secret key
/// is seed ‖ public key). Every mapping the scan means to read must be read whole
/// (`MemoryImage.Scan.unread`), and it must find the account name that SQLite's page
/// cache holds, so a clean result means clean memory, not a blind scan.
///
/// The scan sees live memory and freed memory not yet reused; a copy in a small freed
/// heap chunk is often overwritten within microseconds and escapes it. So the bar is
/// kept by construction (secrets are decoded straight into `SecretBytes`, buffers that
/// held requests are zeroed) and this test guards it: with either zeroing of the input
/// buffer removed, the PINs of the connections left open are found. A match is
/// reported only if it is still there 250 ms later, so a request's own `SecretBytes`,
/// released by its pool thread just after the reply, is not taken for a copy.
final class MemoryHygieneTests: XCTestCase {
    private var daemons: [TestDaemon] = []

    /// The Argon2id cost of the credential whose check the scan catches in flight:
    /// production's memory (`memlimit_mib = 64`, the default) with 64 passes (production's
    /// 3 take ~0.1 s here; the daemon under test raises `kdf.max_opslimit` to take them),
    /// so that one check lasts 1.5–2 s and the scan (under a second, its 64 MiB included)
    /// fits inside it.
    private static let slowKDF = ["opslimit": "64", "memlimit_mib": "64"]
    /// How many such checks are sent back to back on one connection at first, so that the
    /// KDF pool works on them from the first to the last: a sanitized daemon's scan reads
    /// its runtime's heap too and takes longer, and libsodium, not instrumented, does not.
    /// When the scan still outlasts them (a busy machine), the round is made again with
    /// twice as many (`inFlightRounds`).
    private static let checksInFlight = SanitizedBuild.sanitizer == nil ? 1 : 4
    /// How many times the scan "during an Argon2id" is made, with twice the checks each
    /// time, before the test gives up on catching one in flight.
    private static let inFlightRounds = 4
    private static let idleTimeoutSeconds = 2

    /// An Authenticate of the slow credential, as one frame.
    private static func slowCheck(pin: String) throws -> [UInt8] {
        [UInt8](try JSONSerialization.data(withJSONObject: [
            "method": VarlinkClient.vault + ".Authenticate",
            "parameters": ["user": "slow@example.com", "pin": pin, "challenge": Data("in flight".utf8).base64EncodedString()],
        ])) + [0]
    }

    override func tearDownWithError() throws {
        for daemon in daemons where daemon.process != nil {
            XCTAssertEqual(try daemon.stop(), 0, daemon.log)
        }
        daemons = []
    }

    private func requireRoot() throws {
        guard getuid() == 0 else {
            try RootOnlySuites.skip(self, "reading another process's memory needs root") { XCTSkip($0) }
        }
    }

    func testDebugDaemon_rightAfter_duringAKDF_andAfterTheIdleTimeout_holdsNoCopyOfAnySecret() throws {
        try requireRoot()
        try scanAcrossARun(binary: TestDaemon.binaryPath, label: "debug")
    }

    func testReleaseDaemon_rightAfter_duringAKDF_andAfterTheIdleTimeout_holdsNoCopyOfAnySecret() throws {
        try requireRoot()
        try scanAcrossARun(binary: try TestDaemon.releaseBinaryPath(), label: "release")
    }

    /// The run and its three scans, on `binary`.
    private func scanAcrossARun(binary: String, label: String) throws {
        // A credential sealed at the slow cost, by a daemon configured so; the daemon
        // under test (weak KDF, so that the run is quick) serves the same store.
        let sealer = try TestDaemon(overrides: ["kdf": Self.slowKDF], removing: ["kdf": ["memlimit_kib"]], binary: binary)
        daemons.append(sealer)
        try sealer.start()
        let slowPin = DistinctivePin.make()
        let slow = try sealer.connect().register(user: "slow@example.com", pin: slowPin)
        XCTAssertEqual(try sealer.stop(), 0, sealer.log)

        // It must take the slow record's cost (kdf.max_opslimit is 16 unless told).
        let daemon = try TestDaemon(
            overrides: [
                "server": ["idle_timeout_seconds": "\(Self.idleTimeoutSeconds)"],
                "kdf": ["max_opslimit": Self.slowKDF["opslimit"] ?? "64"],
            ],
            binary: binary)
        daemons.append(daemon)
        try daemon.start(arguments: [
            "--config", daemon.configPath, "--socket", daemon.socketPath,
            "--state-directory", sealer.stateDirectory, "--log-level", "debug",
        ])
        guard let pid = daemon.pid else { return XCTFail("no daemon process") }

        var pins: [String] = [slowPin]
        for _ in 0..<14 { pins.append(DistinctivePin.make(avoiding: pins)) }
        pins.removeFirst()
        var rows = Set(try StoredCredentialRow.all(stateDirectory: sealer.stateDirectory))
        let (tokens, publicKeys) = try exercise(daemon, pins: pins) { rows.formUnion(try StoredCredentialRow.all(stateDirectory: sealer.stateDirectory)) }
        // Two connections stay open through the first scans: what they consumed must be gone too.
        let open = try exerciseFraming(daemon, pins: Array(pins[9...]))

        let pepper = try StoredCredentialRow.pepper(stateDirectory: sealer.stateDirectory)
        let slowKeyId = try XCTUnwrap(slow["keyId"] as? String)
        var needles = Needles()
        needles.add(pins: pins, label: "PIN")
        needles.add(tokens: tokens)
        needles.add(publicKeys: publicKeys)
        // Every PIN against every row the run stored (cheap at the weak cost); the slow
        // row with its own PIN only (a second of Argon2id).
        try needles.addSecrets(of: rows.filter { $0.keyId != slowKeyId }, pins: pins, pepper: pepper)
        try needles.addSecrets(of: rows.filter { $0.keyId == slowKeyId }, pins: [slowPin], pepper: pepper)
        print("memory hygiene (\(label)): \(needles.all.count) needles from \(rows.count) stored rows")
        XCTAssertEqual(needles.all.filter { $0.label.hasPrefix("P-256 scalar") }.count, 2, "the P-256 key's scalar is a needle, both ways round")

        // 1. Right after: once the engine reports no work queued or running.
        try waitUntilIdle(daemon)
        // The slow PIN has not reached this daemon yet: it must not be there either.
        try assertClean(pid, needles.all + Needles.of(pins: [slowPin], label: "slow PIN"), "\(label), right after the run")

        // 2. During an Argon2id: its own PIN is in flight (in its SecretBytes); nothing else may be.
        // Caught in flight only if the scan ended before the last reply came: a scan the
        // KDF work did not outlast proves nothing, so it is made again with twice the work
        // (on a busy machine the scan takes longer; the KDF's length is the record's).
        var connections: [VarlinkClient] = []
        var checks = Self.checksInFlight
        var overlapped = false
        for round in 1...Self.inFlightRounds {
            let inFlight = try daemon.connect()
            try inFlight.send(raw: Array([[UInt8]](repeating: try Self.slowCheck(pin: slowPin), count: checks).joined()))
            // A connection of its own, made now: the idle timeout may have closed an older one.
            let admin = try daemon.connect()
            connections += [inFlight, admin]
            XCTAssertTrue(try eventually { try self.kdfRunning(admin) > 0 }, "the slow Authenticate never reached the KDF pool")
            var answered = 0
            try assertClean(pid, needles.all, "\(label), during an Argon2id (round \(round), \(checks) checks)") {
                answered = Self.repliesWaiting(inFlight.fd)
            }
            for _ in 0..<checks {
                XCTAssertNil(try inFlight.receive().error, "the slow credential opens with its PIN")
            }
            if answered < checks {
                overlapped = true
                break
            }
            print("memory hygiene (\(label)): all \(checks) checks were answered before the scan ended; again with \(checks * 2)")
            checks *= 2
        }
        XCTAssertTrue(overlapped, "no scan ended while the KDF still worked, up to \(checks / 2) checks in flight")
        needles.add(pins: [slowPin], label: "slow PIN")
        XCTAssertTrue(needles.all.contains { $0.label.hasPrefix("seed of \(slowKeyId.prefix(8))") }, "the slow row's seed is a needle")

        // 3. After the idle timeout has closed every connection.
        for client in connections + open {
            XCTAssertTrue(client.isClosedByPeer(timeout: Double(Self.idleTimeoutSeconds) + 20),
                          "server.idle_timeout_seconds closes an idle connection")
        }
        XCTAssertTrue(daemon.log.contains("idle for server.idle_timeout_seconds"), "closed by the idle timeout:\n\(daemon.log)")
        try assertClean(pid, needles.all, "\(label), after the idle timeout")
    }

    /// Scans `pid` for `needles`; fails on a copy still there 250 ms later, on a mapping
    /// not read whole, and on a scan that does not find the account name. `whileScanned`
    /// runs as soon as the first pass ends.
    private func assertClean(
        _ pid: Int32, _ needles: [(label: String, bytes: [UInt8])], _ moment: String,
        whileScanned: () -> Void = {}, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let image = MemoryImage(pid: pid)
        let scan = try image.scan(needles + [("account name", Array("hygiene@example.com".utf8))])
        whileScanned()
        print("memory hygiene (\(moment)): \(scan.summary)")
        XCTAssertEqual(scan.unread.map { "\($0.region): \($0.error)" }, [], "every mapping meant to be read was read whole",
                       file: file, line: line)
        XCTAssertGreaterThan(scan.readBytes, 1 << 20, "the scan read the daemon's memory", file: file, line: line)
        XCTAssertTrue(scan.matches.contains { $0.needle == "account name" }, "the scan finds the account name", file: file, line: line)
        let suspects = try secretMatches(scan.matches, needles)
        guard !suspects.isEmpty else { return }
        usleep(250_000)
        let again = try secretMatches(try image.scan(needles.filter { needle in suspects.contains { $0.needle == needle.label } }).matches, needles)
        XCTAssertEqual(again.count, 0, "copies left in pinvaultd (\(moment)):\n" + again.map(\.description).joined(separator: "\n"),
                       file: file, line: line)
    }

    /// The matches that are secrets: not the account name, and a public key only when
    /// the 32 bytes before it are its seed.
    private func secretMatches(_ matches: [MemoryImage.Match], _ needles: [(label: String, bytes: [UInt8])]) throws -> [MemoryImage.Match] {
        let keys = Dictionary(needles.filter { $0.label.hasPrefix("public key") }.map { ($0.label, $0.bytes) }) { first, _ in first }
        return try matches.filter { match in
            if match.needle == "account name" { return false }
            if let key = keys[match.needle] { return try Self.isSeed(match.preceding, of: key) }
            return true
        }
    }

    private func kdfRunning(_ admin: VarlinkClient) throws -> Int {
        let counters = try XCTUnwrap(try admin.succeeding("GetStats").object("counters"))
        return (counters["kdfRunning"] as? NSNumber)?.intValue ?? 0
    }

    /// Waits until GetStats shows no KDF job queued or running.
    private func waitUntilIdle(_ daemon: TestDaemon) throws {
        let admin = try daemon.connect()
        defer { admin.close() }
        XCTAssertTrue(try eventually {
            let counters = try XCTUnwrap(try admin.succeeding("GetStats").object("counters"))
            return (counters["kdfRunning"] as? NSNumber)?.intValue == 0 && (counters["kdfQueueDepth"] as? NSNumber)?.intValue == 0
        }, "the engine never went idle")
    }

    private func eventually(timeout: TimeInterval = 20, _ condition: () throws -> Bool) throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return true }
            usleep(2_000)
        }
        return false
    }

    /// How many whole replies wait unread on `fd` (peeked, not consumed).
    private static func repliesWaiting(_ fd: Int32) -> Int {
        var bytes = [UInt8](repeating: 0xff, count: 65536)
        let n = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_PEEK | MSG_DONTWAIT)) }
        return n > 0 ? bytes[..<n].filter { $0 == 0 }.count : 0
    }

    /// The scan finds a PIN that is there: this test process holds one in an Array.
    func testScan_findsAPinThatIsInMemory() throws {
        try requireRoot()
        let pin = DistinctivePin.make()
        let held = Array(pin.utf8)
        let scan = try MemoryImage(pid: getpid()).scan([("PIN", held)])
        print("memory hygiene (this test process): \(scan.summary)")
        XCTAssertGreaterThan(scan.matches.count, 0, "the scan finds a PIN held in this process")
        XCTAssertEqual(scan.unread.map { "\($0.region): \($0.error)" }, [], "every mapping meant to be read was read whole")
        withExtendedLifetime(held) {}
    }

    func testDaemon_isNotDumpable_andHasNoCoreLimit() throws {
        try requireRoot()
        // Run as nobody, so that the kernel would let nobody read its memory were it
        // dumpable: only PR_SET_DUMPABLE 0 keeps its own uid out. Its binary and deny
        // list are staged where nobody can reach them (the checkout may be in a 0700 home).
        let daemon = try TestDaemon(
            overrides: ["policy": ["deny_list": TestDaemon.tomlString(try WorldReadableStage.copy(of: TestDaemon.denyListPath))]],
            binary: try WorldReadableStage.copy(of: TestDaemon.binaryPath),
            owner: ForeignUidClient.nobody)
        daemons.append(daemon)
        try daemon.start(launcher: (
            "/usr/bin/setpriv",
            ["--reuid=\(ForeignUidClient.nobody)", "--regid=\(ForeignUidClient.nobody)", "--clear-groups", "--"]
        ))
        guard let pid = daemon.pid else { return XCTFail("no daemon process") }

        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        XCTAssertTrue(status.contains("\nUid:\t\(ForeignUidClient.nobody)\t"), "the daemon runs as nobody: \(status)")
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        let core = limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") }
        XCTAssertEqual(core?.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).prefix(2).joined(separator: " "), "0 0",
                       "RLIMIT_CORE is 0, soft and hard: \(core ?? "absent")")

        // A non-dumpable process's /proc files belong to root, not to its uid.
        var info = stat()
        XCTAssertEqual(stat("/proc/\(pid)/mem", &info), 0)
        XCTAssertEqual(info.st_uid, 0, "/proc/PID/mem of a non-dumpable process is root's")

        // And its own uid cannot read its memory.
        let reader = try Subprocess.run(
            "/usr/bin/setpriv",
            ["--reuid=\(ForeignUidClient.nobody)", "--regid=\(ForeignUidClient.nobody)", "--clear-groups", "--",
             "/usr/bin/python3", "-c", "open('/proc/\(pid)/mem', 'rb')"]
        )
        XCTAssertNotEqual(reader.status, 0, "nobody cannot open the memory of its own non-dumpable daemon")
        XCTAssertTrue(reader.standardError.contains("PermissionError"), "\(reader)")
    }

    // MARK: The run of requests

    /// Register, CheckPin, Authenticate (right, wrong, escaped), ChangePin, BeginUnregister
    /// with Abort and with Commit, Wipe: every method that takes a PIN or a token; and a
    /// P-256 key's Authenticate and Unlock, signatures and Lock (its scalar must be gone).
    /// Uses `pins[0...8]`.
    /// Returns the tokens handed out and the public keys registered.
    /// `snapshot` runs whenever the rows changed, before any is deleted.
    private func exercise(
        _ daemon: TestDaemon, pins: [String], snapshot: () throws -> Void
    ) throws -> (tokens: [String], publicKeys: [[UInt8]]) {
        let client = try daemon.connect()
        let user = "hygiene@example.com"
        XCTAssertEqual(try client.succeeding("CheckPin", ["pin": pins[0]]).bool("valid"), true)
        let first = try client.register(user: user, pin: pins[0], label: "first")
        guard let firstKey = first["keyId"] as? String else { throw TestKitError("no keyId") }
        try snapshot()
        XCTAssertNil(try client.authenticate(user: user, pin: pins[0], keyId: firstKey).error)
        XCTAssertEqual(try client.authenticate(user: user, pin: pins[1], keyId: firstKey).errorName, "WrongPin")
        _ = try client.succeeding("ChangePin", ["user": user, "keyId": firstKey, "currentPin": pins[0], "newPin": pins[2]])
        try snapshot()
        // The same PIN, escaped in JSON the way some encoders write digits.
        try client.send(raw: Array(("{\"method\":\"io.pinvault.Vault.Authenticate\",\"parameters\":{\"user\":\"\(user)\","
            + "\"keyId\":\"\(firstKey)\",\"pin\":\"\(DistinctivePin.escaped(pins[2]))\",\"challenge\":\"YWJj\"}}\0").utf8))
        XCTAssertNil(try client.receive().error)

        let second = try client.register(user: user, pin: pins[3], label: "second")
        guard let secondKey = second["keyId"] as? String else { throw TestKitError("no keyId") }
        try snapshot()
        var tokens: [String] = []
        for (keyId, pin, commit) in [(firstKey, pins[2], false), (secondKey, pins[3], true)] {
            let begun = try client.succeeding("BeginUnregister", ["user": user, "keyId": keyId, "pin": pin])
            guard let token = begun.string("token") else { throw TestKitError("no token") }
            tokens.append(token)
            _ = try client.succeeding(commit ? "CommitUnregister" : "AbortUnregister", ["keyId": keyId, "token": token])
        }
        XCTAssertEqual(try client.vault("CheckPin", ["pin": pins[4]]).bool("valid"), true)
        let other = try client.register(user: "other@example.com", pin: pins[5])
        try snapshot()
        XCTAssertEqual(try client.vault("Wipe", ["user": "other@example.com", "pin": pins[6]]).errorName, "WrongPin")
        _ = try client.succeeding("Wipe", ["user": "other@example.com", "pin": pins[5]])

        let p256 = try client.register(user: user, pin: pins[7], label: "p256", algorithm: "p256")
        guard let p256Key = p256["keyId"] as? String else { throw TestKitError("no keyId") }
        try snapshot()
        XCTAssertNil(try client.authenticate(user: user, pin: pins[7], keyId: p256Key).error)
        XCTAssertEqual(try client.authenticate(user: user, pin: pins[8], keyId: p256Key).errorName, "WrongPin")
        _ = try client.succeeding("Unlock", ["user": user, "keyId": p256Key, "pin": pins[7], "ttlSeconds": 600])
        for index in 0..<3 {
            _ = try client.succeeding("Sign", ["keyId": p256Key, "challenge": Data("challenge \(index)".utf8).base64EncodedString()])
        }
        _ = try client.succeeding("Lock", ["keyId": p256Key])
        client.close()
        let publicKeys = [first, second, other, p256].compactMap { credential in
            (credential["publicKey"] as? String).flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) }
        }
        XCTAssertEqual(publicKeys.count, 4)
        return (tokens, publicKeys)
    }

    /// The ways a PIN reaches the input buffer other than one call per read: calls
    /// pipelined in one write, a call trickled byte by byte past the buffer's first
    /// capacity (so that it grows), a oneway call, a frame that is not a call, a call
    /// cut off by the peer, and a message with no NUL within `max_message_bytes`.
    /// Returns the connections still open.
    private func exerciseFraming(_ daemon: TestDaemon, pins: [String]) throws -> [VarlinkClient] {
        func checkPin(_ pin: String, padding: Int = 0, oneway: Bool = false) -> [UInt8] {
            Array(("{\"method\":\"io.pinvault.Vault.CheckPin\"," + String(repeating: " ", count: padding)
                + (oneway ? "\"oneway\":true," : "") + "\"parameters\":{\"pin\":\"\(pin)\"}}\0").utf8)
        }
        let pipelined = try daemon.connect()
        try pipelined.send(raw: checkPin(pins[0]) + checkPin(pins[0], oneway: true) + checkPin(pins[0]))
        XCTAssertNil(try pipelined.receive().error)
        XCTAssertNil(try pipelined.receive().error)

        let trickled = try daemon.connect()
        for byte in checkPin(pins[1], padding: 6000) {
            try trickled.send(raw: [byte])
        }
        XCTAssertNil(try trickled.receive().error)

        let violation = try daemon.connect()
        try violation.send(raw: Array("[\"\(pins[2])\"]\0".utf8))
        XCTAssertTrue(violation.isClosedByPeer(), "a frame that is not a call closes the connection")

        let cutOff = try daemon.connect()
        try cutOff.send(raw: Array(checkPin(pins[3]).dropLast(3)))
        usleep(50_000)
        cutOff.close()

        let oversized = try daemon.connect()
        try? oversized.send(raw: Array(checkPin(pins[4], padding: 70_000).dropLast()))
        XCTAssertTrue(oversized.isClosedByPeer(), "no NUL within max_message_bytes closes the connection")
        return [pipelined, trickled]
    }

    /// Whether `candidate` is the Ed25519 seed of `publicKey`.
    private static func isSeed(_ candidate: [UInt8], of publicKey: [UInt8]) throws -> Bool {
        guard candidate.count == 32 else { return false }
        let seed = try candidate.withUnsafeBytes { try SecretBytes(copying: $0) }
        return try SigningKeyPair(algorithm: .ed25519, seed: seed).publicKey == publicKey
    }

    private static func base64urlDecoded(_ text: String) -> [UInt8]? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }
}

/// The byte strings the scans look for, each with a label that says what it is.
private struct Needles {
    private(set) var all: [(label: String, bytes: [UInt8])] = []

    /// Each PIN as sent and JSON-escaped (as some encoders write digits).
    static func of(pins: [String], label: String) -> [(label: String, bytes: [UInt8])] {
        pins.enumerated().flatMap { index, pin in
            [("\(label) \(index)", Array(pin.utf8)), ("\(label) \(index) JSON-escaped", Array(DistinctivePin.escaped(pin).utf8))]
        }
    }

    mutating func add(pins: [String], label: String) {
        all += Self.of(pins: pins, label: label)
    }

    /// Each unregistration token as text and as its 32 bytes.
    mutating func add(tokens: [String]) {
        for (index, token) in tokens.enumerated() {
            all.append(("token \(index) text", Array(token.utf8)))
            var standard = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while standard.count % 4 != 0 { standard += "=" }
            if let raw = Data(base64Encoded: standard) { all.append(("token \(index) bytes", [UInt8](raw))) }
        }
    }

    /// Public keys are no secret, but the 32 bytes before one that derive it are its
    /// seed (libsodium's secret key is seed ‖ public key).
    mutating func add(publicKeys: [[UInt8]]) {
        for (index, key) in publicKeys.enumerated() { all.append(("public key \(index)", key)) }
    }

    /// For each row and PIN, the Argon2id output and the box key; for each row, the
    /// seed its PIN opens — derived as docs/FORMAT.md gives them.
    mutating func addSecrets(of rows: some Sequence<StoredCredentialRow>, pins: [String], pepper: Pepper) throws {
        for row in rows {
            let name = "\(row.keyId.prefix(8)) (salt \(row.salt.prefix(3).map { String(format: "%02x", $0) }.joined()))"
            for (index, pin) in pins.enumerated() {
                let derived = try row.secrets(pin: pin, pepper: pepper)
                all.append(("Argon2id output of \(name) with PIN \(index)", derived.pinKey))
                all.append(("box key of \(name) with PIN \(index)", derived.boxKey))
                if let seed = derived.seed, !all.contains(where: { $0.bytes == seed }) {
                    all.append(("seed of \(name)", seed))
                    for (order, scalar) in zip(["big-endian", "little-endian"], derived.scalars) {
                        all.append(("P-256 scalar (\(order)) of \(name)", scalar))
                    }
                }
            }
        }
    }
}
