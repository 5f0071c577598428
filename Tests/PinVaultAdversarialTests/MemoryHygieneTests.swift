import Foundation
import Glibc
import PinVaultCrypto
import PinVaultTestKit
import XCTest

/// SECURITY.md, "Memory hygiene": after a run of requests, the daemon's memory holds no copy of any PIN,
/// token or seed that was used. Read as root from outside, through /proc/PID/mem, the
/// way an attacker who gets hold of a memory image (a core dump, a swapped page, a
/// debugger) would; and the daemon lets nobody else take such an image.
///
/// The scan sees live memory and freed memory not yet reused; a copy in a small freed
/// heap chunk is often overwritten within microseconds and escapes it. So the bar is
/// kept by construction (secrets are decoded straight into `SecretBytes`, buffers that
/// held requests are zeroed) and this test guards it: with either zeroing of the input
/// buffer removed, the PINs of the connections left open are found.
final class MemoryHygieneTests: XCTestCase {
    private var daemon: TestDaemon?

    override func tearDownWithError() throws {
        if let daemon, daemon.process != nil {
            XCTAssertEqual(try daemon.stop(), 0, daemon.log)
        }
        daemon = nil
    }

    private func requireRoot() throws {
        guard getuid() == 0 else {
            try RootOnlySuites.skip(self, "reading another process's memory needs root") { XCTSkip($0) }
        }
        // ThreadSanitizer's heap lies in mappings of terabytes, too large to read; under
        // AddressSanitizer the scan works, and sees freed memory that the quarantine keeps.
        try XCTSkipIf(dlsym(nil, "__tsan_init") != nil, "the scan cannot read a ThreadSanitizer heap")
    }

    func testDaemonMemory_afterEveryPinMethod_holdsNoCopyOfAnyPinTokenOrSeed() throws {
        try requireRoot()
        let daemon = try TestDaemon()
        self.daemon = daemon
        try daemon.start()
        guard let pid = daemon.pid else { return XCTFail("no daemon process") }

        var pins: [String] = []
        for _ in 0..<12 { pins.append(DistinctivePin.make(avoiding: pins)) }
        let (tokens, publicKeys) = try exercise(daemon, pins: pins)
        // Two connections stay open through the scan: what they consumed must be gone too.
        let open = try exerciseFraming(daemon, pins: Array(pins[7...]))
        defer { open.forEach { $0.close() } }

        // Replies are answered before the pools' last release runs: let them settle.
        usleep(300_000)
        var needles: [(label: String, bytes: [UInt8])] = []
        for (index, pin) in pins.enumerated() {
            needles.append(("PIN \(index)", Array(pin.utf8)))
            needles.append(("PIN \(index) JSON-escaped", Array(DistinctivePin.escaped(pin).utf8)))
        }
        for (index, token) in tokens.enumerated() {
            needles.append(("token \(index) text", Array(token.utf8)))
            if let raw = Self.base64urlDecoded(token) { needles.append(("token \(index) bytes", raw)) }
        }
        // A public key is no secret, but libsodium's secret key is seed ‖ public key:
        // 32 bytes before a public key that derive it are a copy of its seed.
        var keysByLabel: [String: [UInt8]] = [:]
        for (index, key) in publicKeys.enumerated() {
            keysByLabel["public key \(index)"] = key
            needles.append(("public key \(index)", key))
        }
        // The account name is no secret and is in the daemon's memory (SQLite's page
        // cache): finding it shows that the scan sees what is there.
        needles.append(("account name", Array("hygiene@example.com".utf8)))
        let (found, searched) = try MemoryImage(pid: pid).find(needles)
        let matches = try found.filter { match in
            if match.needle == "account name" { return false }
            if let key = keysByLabel[match.needle] { return try Self.isSeed(match.preceding, of: key) }
            return true
        }
        XCTAssertGreaterThan(searched, 1 << 20, "the scan read the daemon's memory")
        XCTAssertTrue(found.contains { $0.needle == "account name" }, "the scan finds the account name")
        XCTAssertEqual(matches.count, 0, "copies left in pinvaultd:\n" + matches.map(\.description).joined(separator: "\n"))
    }

    /// The scan finds a PIN that is there: this test process holds one in an Array.
    func testScan_findsAPinThatIsInMemory() throws {
        try requireRoot()
        let pin = DistinctivePin.make()
        let held = Array(pin.utf8)
        let (matches, _) = try MemoryImage(pid: getpid()).find([("PIN", held)])
        XCTAssertGreaterThan(matches.count, 0, "the scan finds a PIN held in this process")
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
        self.daemon = daemon
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
    /// with Abort and with Commit, Wipe: every method that takes a PIN or a token.
    /// Returns the tokens handed out and the public keys registered.
    private func exercise(_ daemon: TestDaemon, pins: [String]) throws -> (tokens: [String], publicKeys: [[UInt8]]) {
        let client = try daemon.connect()
        let user = "hygiene@example.com"
        XCTAssertEqual(try client.succeeding("CheckPin", ["pin": pins[0]]).bool("valid"), true)
        let first = try client.register(user: user, pin: pins[0], label: "first")
        guard let firstKey = first["keyId"] as? String else { throw TestKitError("no keyId") }
        XCTAssertNil(try client.authenticate(user: user, pin: pins[0], keyId: firstKey).error)
        XCTAssertEqual(try client.authenticate(user: user, pin: pins[1], keyId: firstKey).errorName, "WrongPin")
        _ = try client.succeeding("ChangePin", ["user": user, "keyId": firstKey, "currentPin": pins[0], "newPin": pins[2]])
        // The same PIN, escaped in JSON the way some encoders write digits.
        try client.send(raw: Array(("{\"method\":\"io.pinvault.Vault.Authenticate\",\"parameters\":{\"user\":\"\(user)\","
            + "\"keyId\":\"\(firstKey)\",\"pin\":\"\(DistinctivePin.escaped(pins[2]))\",\"challenge\":\"YWJj\"}}\0").utf8))
        XCTAssertNil(try client.receive().error)

        let second = try client.register(user: user, pin: pins[3], label: "second")
        guard let secondKey = second["keyId"] as? String else { throw TestKitError("no keyId") }
        var tokens: [String] = []
        for (keyId, pin, commit) in [(firstKey, pins[2], false), (secondKey, pins[3], true)] {
            let begun = try client.succeeding("BeginUnregister", ["user": user, "keyId": keyId, "pin": pin])
            guard let token = begun.string("token") else { throw TestKitError("no token") }
            tokens.append(token)
            _ = try client.succeeding(commit ? "CommitUnregister" : "AbortUnregister", ["keyId": keyId, "token": token])
        }
        XCTAssertEqual(try client.vault("CheckPin", ["pin": pins[4]]).bool("valid"), true)
        let other = try client.register(user: "other@example.com", pin: pins[5])
        XCTAssertEqual(try client.vault("Wipe", ["user": "other@example.com", "pin": pins[6]]).errorName, "WrongPin")
        _ = try client.succeeding("Wipe", ["user": "other@example.com", "pin": pins[5]])
        client.close()
        let publicKeys = [first, second, other].compactMap { credential in
            (credential["publicKey"] as? String).flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) }
        }
        XCTAssertEqual(publicKeys.count, 3)
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
        return try SigningKeyPair(seed: seed).publicKey == publicKey
    }

    private static func base64urlDecoded(_ text: String) -> [UInt8]? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }
}
