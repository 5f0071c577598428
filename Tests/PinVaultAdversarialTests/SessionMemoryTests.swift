import Foundation
import Glibc
import PinVaultCrypto
import PinVaultTestKit
import XCTest

/// SECURITY.md, "Unlock sessions": an unlocked Ed25519 key lives only in its session's
/// `sodium_malloc` pages, closed (`sodium_mprotect_noaccess`) between signatures, a P-256
/// key only in libcrypto's secure heap, and no copy of either outlives the session. Read
/// as root through /proc/PID/mem, the closed pages included: while unlocked, the scan
/// finds the key (seed ‖ public key, or the scalar) — so it sees where the key is — and
/// after Lock or expiry, nowhere. (`MemoryImage.scan` reads every mapping that was ever
/// touched, the closed ones among them.)
final class SessionMemoryTests: XCTestCase {
    private var daemon: TestDaemon?
    private let pin = "258046"

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
        try XCTSkipIf(SanitizedBuild.sanitizer == "ThreadSanitizer", "the scan cannot read a ThreadSanitizer heap")
    }

    /// Copies of the seed of `publicKey` in the daemon's memory: 32 bytes before an
    /// occurrence of the public key that derive it (libsodium's secret key layout).
    private func seedCopies(in pid: Int32, of publicKey: [UInt8]) throws -> [MemoryImage.Match] {
        let scan = try MemoryImage(pid: pid).scan([("public key", publicKey)])
        XCTAssertEqual(scan.unread.map { "\($0.region): \($0.error)" }, [], "every mapping meant to be read was read whole")
        return try scan.matches.filter { match in
            guard match.preceding.count == 32 else { return false }
            let seed = try match.preceding.withUnsafeBytes { try SecretBytes(copying: $0) }
            return try SigningKeyPair(algorithm: .ed25519, seed: seed).publicKey == publicKey
        }
    }

    /// Copies of a P-256 key's scalar: big-endian (PinVault's own) and little-endian (as
    /// libcrypto's BIGNUM limbs hold it here), the scalar derived as docs/FORMAT.md says
    /// from the seed the stored row, the pepper and the PIN give.
    private func scalarCopies(in pid: Int32, keyId: String) throws -> (bigEndian: [MemoryImage.Match], littleEndian: [MemoryImage.Match]) {
        let directory = try XCTUnwrap(daemon).stateDirectory
        let row = try XCTUnwrap(try StoredCredentialRow.all(stateDirectory: directory).first { $0.keyId == keyId })
        let scalars = try row.secrets(pin: pin, pepper: StoredCredentialRow.pepper(stateDirectory: directory)).scalars
        XCTAssertEqual(scalars.count, 2, "the row opens and is a P-256 key")
        let scan = try MemoryImage(pid: pid).scan(zip(["big-endian", "little-endian"], scalars).map { ($0, $1) })
        XCTAssertEqual(scan.unread.map { "\($0.region): \($0.error)" }, [], "every mapping meant to be read was read whole")
        return (scan.matches.filter { $0.needle == "big-endian" }, scan.matches.filter { $0.needle == "little-endian" })
    }

    private func startUnlocked(ttl: Int, algorithm: String = "ed25519") throws -> (client: VarlinkClient, pid: Int32, keyId: String, publicKey: [UInt8]) {
        let daemon = try TestDaemon()
        self.daemon = daemon
        try daemon.start()
        guard let pid = daemon.pid else { throw TestKitError("no daemon process") }
        let client = try daemon.connect()
        let credential = try client.register(user: "memory@example.com", pin: pin, algorithm: algorithm)
        let keyId = try XCTUnwrap(credential["keyId"] as? String)
        let publicKey = [UInt8](try XCTUnwrap(Data(base64Encoded: credential["publicKey"] as? String ?? "")))
        _ = try client.succeeding("Unlock", ["user": "memory@example.com", "pin": pin, "ttlSeconds": ttl])
        for index in 0..<5 {
            _ = try client.succeeding("Sign", ["keyId": keyId, "challenge": Data("challenge \(index)".utf8).base64EncodedString()])
        }
        return (client, pid, keyId, publicKey)
    }

    func testAfterLock_noCopyOfTheSeedIsLeft_whileUnlocked_theScanFindsIt() throws {
        try requireRoot()
        let (client, pid, keyId, publicKey) = try startUnlocked(ttl: 600)
        let unlocked = try seedCopies(in: pid, of: publicKey)
        XCTAssertEqual(unlocked.count, 1, "the scan did not find the session's key exactly once:\n" + unlocked.map(\.description).joined(separator: "\n"))
        XCTAssertTrue(unlocked.allSatisfy { $0.region.permissions == "---p" }, "the key lay open between signatures: \(unlocked)")

        _ = try client.succeeding("Lock", ["keyId": keyId])
        usleep(300_000)
        let left = try seedCopies(in: pid, of: publicKey)
        XCTAssertEqual(left.count, 0, "seed copies after Lock:\n" + left.map(\.description).joined(separator: "\n"))
    }

    /// A P-256 session's key is libcrypto's (`P256.HeldKey`): the scalar is held once,
    /// as libcrypto's BIGNUM limbs (little-endian), in libcrypto's secure heap — the
    /// 128 KiB arena `CPinVaultOpenSSL/libcrypto.c` sets up, its pages locked and left
    /// out of core dumps — and nowhere else either way round (the big-endian scalar it
    /// was made from is zeroed); after Lock, nowhere.
    func testAfterLock_noCopyOfAP256ScalarIsLeft_whileUnlocked_theScanFindsItOnce() throws {
        try requireRoot()
        let (client, pid, keyId, _) = try startUnlocked(ttl: 600, algorithm: "p256")
        let unlocked = try scalarCopies(in: pid, keyId: keyId)
        XCTAssertEqual(unlocked.littleEndian.count, 1, "the session's scalar in libcrypto, exactly once:\n"
                       + unlocked.littleEndian.map(\.description).joined(separator: "\n"))
        for match in unlocked.littleEndian {
            XCTAssertTrue(match.region.name.isEmpty && match.region.size == 128 << 10, "not libcrypto's secure heap: \(match)")
            XCTAssertTrue(match.region.flags.contains("lo"), "the secure heap's pages are not locked: \(match)")
            XCTAssertTrue(match.region.flags.contains("dd"), "the secure heap's pages would go into a core dump: \(match)")
        }
        XCTAssertEqual(unlocked.bigEndian.count, 0, "a copy of the scalar outside libcrypto:\n"
                       + unlocked.bigEndian.map(\.description).joined(separator: "\n"))

        _ = try client.succeeding("Lock", ["keyId": keyId])
        usleep(300_000)
        let left = try scalarCopies(in: pid, keyId: keyId)
        XCTAssertEqual(left.bigEndian.count + left.littleEndian.count, 0,
                       "scalar copies after Lock:\n" + (left.bigEndian + left.littleEndian).map(\.description).joined(separator: "\n"))
    }

    func testAfterExpiry_noCopyOfTheSeedIsLeft() throws {
        try requireRoot()
        // The first scan must end before the session does: when it outlasts the TTL on a
        // busy machine, nothing is proved, and the session is opened again for twice as long.
        // (`before` is taken before the daemon starts, so it is earlier than the Unlock;
        // `unlocked`, after, is later: the deadline lies between them plus the TTL.)
        var ttl = 4
        var before = Date()
        var (client, pid, keyId, publicKey) = try startUnlocked(ttl: ttl)
        var unlocked = Date()
        while true {
            let copies = try seedCopies(in: pid, of: publicKey).count
            if Date().timeIntervalSince(before) < Double(ttl) {
                XCTAssertEqual(copies, 1, "the scan did not find the session's key exactly once")
                break
            }
            guard ttl < 64 else { return XCTFail("the scan outlasted a session of \(ttl) s: nothing proved") }
            ttl *= 2
            print("session memory: the scan outlasted the session; again with a TTL of \(ttl) s")
            XCTAssertEqual(try daemon?.stop(), 0)
            before = Date()
            (client, pid, keyId, publicKey) = try startUnlocked(ttl: ttl)
            unlocked = Date()
        }
        usleep(useconds_t(max(0, Double(ttl) + 0.6 - Date().timeIntervalSince(unlocked)) * 1_000_000))
        XCTAssertEqual(try client.vault("Sign", ["keyId": keyId, "challenge": "AA=="]).error, "io.pinvault.Vault.NotUnlocked")
        let left = try seedCopies(in: pid, of: publicKey)
        XCTAssertEqual(left.count, 0, "seed copies after expiry:\n" + left.map(\.description).joined(separator: "\n"))
    }
}
