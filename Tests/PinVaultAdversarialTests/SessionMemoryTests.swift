import Foundation
import Glibc
import PinVaultCrypto
import PinVaultTestKit
import XCTest

/// SECURITY.md, "Unlock sessions": an unlocked key lives only in its session's
/// `sodium_malloc` pages, closed (`sodium_mprotect_noaccess`) between signatures, and
/// no copy of its seed outlives the session. Read as root through /proc/PID/mem, the
/// closed pages included: while unlocked, the scan finds the key (seed ‖ public key)
/// — so it sees where the key is — and after Lock or expiry, nowhere. (`MemoryImage.scan`
/// reads every mapping that was ever touched, the closed ones among them.)
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
            return try SigningKeyPair(seed: seed).publicKey == publicKey
        }
    }

    private func startUnlocked(ttl: Int) throws -> (client: VarlinkClient, pid: Int32, keyId: String, publicKey: [UInt8]) {
        let daemon = try TestDaemon()
        self.daemon = daemon
        try daemon.start()
        guard let pid = daemon.pid else { throw TestKitError("no daemon process") }
        let client = try daemon.connect()
        let credential = try client.register(user: "memory@example.com", pin: pin)
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

    func testAfterExpiry_noCopyOfTheSeedIsLeft() throws {
        try requireRoot()
        // Long enough for the first scan to end before the session does, even on a busy machine.
        let (client, pid, keyId, publicKey) = try startUnlocked(ttl: 4)
        let started = Date()
        XCTAssertEqual(try seedCopies(in: pid, of: publicKey).count, 1)
        XCTAssertLessThan(Date().timeIntervalSince(started), 3.5, "the scan outlasted the session: nothing proved")
        usleep(useconds_t(max(0, 4.6 - Date().timeIntervalSince(started)) * 1_000_000))
        XCTAssertEqual(try client.vault("Sign", ["keyId": keyId, "challenge": "AA=="]).error, "io.pinvault.Vault.NotUnlocked")
        let left = try seedCopies(in: pid, of: publicKey)
        XCTAssertEqual(left.count, 0, "seed copies after expiry:\n" + left.map(\.description).joined(separator: "\n"))
    }
}
