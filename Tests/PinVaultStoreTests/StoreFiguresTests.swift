import Glibc
import XCTest
@testable import PinVaultStore

/// Figures for the design notes: bytes on disk per credential, and the cost of one
/// durable write transaction. Printed; the size is also held to a bound.
final class StoreFiguresTests: XCTestCase {
    func testDiskSize_perCredential_staysUnderOneKilobyte() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("vault.sqlite")
        let store = try VaultStore(path: path)
        let count = 1000
        let records = try (0..<count).map { index in
            try CredentialFixtures.record(user: "user\(index % 100)@example.com", label: "device \(index)",
                                          createdAt: 1_700_000_000 + Int64(index))
        }
        try store.write { writer in
            for record in records { try writer.insert(record) }
        }
        try store.withConnection { try $0.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
        var status = stat()
        XCTAssertEqual(stat(path, &status), 0)
        let perCredential = Double(status.st_size) / Double(count)
        print("FIGURE database bytes after checkpoint: \(status.st_size) for \(count) credentials = \(perCredential) bytes each")
        XCTAssertLessThan(perCredential, 1024)
        store.close()
    }

    func testWriteTransaction_timing() throws {
        let directory = try TemporaryDirectory()
        let store = try VaultStore(path: directory.file("vault.sqlite"))
        defer { store.close() }
        var record = try CredentialFixtures.record()
        try store.write { try $0.insert(record) }
        let rounds = 200
        var clock = timespec()
        clock_gettime(CLOCK_MONOTONIC, &clock)
        let start = Double(clock.tv_sec) + Double(clock.tv_nsec) / 1e9
        for round in 0..<rounds {
            record.failedAttempts = round
            try store.write { try $0.update(record) }
        }
        clock_gettime(CLOCK_MONOTONIC, &clock)
        let elapsed = Double(clock.tv_sec) + Double(clock.tv_nsec) / 1e9 - start
        print("FIGURE one write transaction (update, synchronous=FULL): \(elapsed / Double(rounds) * 1000) ms mean over \(rounds)")
        XCTAssertEqual(try store.read { try $0.credential(keyId: record.keyId)?.failedAttempts }, rounds - 1)
    }
}
