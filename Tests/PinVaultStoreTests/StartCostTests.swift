import Glibc
import XCTest

@testable import PinVaultStore

/// The open reads no row (docs/OPERATIONS.md, "Start"): `quick_check`, which reads the
/// whole file, runs only after an unclean stop; the records are checked in slices
/// afterwards, and an empty vault is one probe, not a count.
final class StartCostTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.file("vault.sqlite") }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory = nil
    }

    func testOpen_afterACleanClose_doesNotReadTheWholeFile() throws {
        do {
            let store = try VaultStore(path: path)
            XCTAssertFalse(store.checkedIntegrity, "a new vault has nothing to check")
            try store.write { try $0.insert(try CredentialFixtures.record()) }
            store.close()
        }
        XCTAssertFalse(VaultStore.writeAheadLogHasFrames(path: path), "a clean close checkpoints and deletes the WAL")
        let store = try VaultStore(path: path)
        defer { store.close() }
        XCTAssertFalse(store.checkedIntegrity)
    }

    func testOpen_whileTheLastWriterLeftFramesInTheLog_checksIntegrity() throws {
        let writer = try VaultStore(path: path)
        defer { writer.close() }
        try writer.write { try $0.insert(try CredentialFixtures.record()) }
        // The writer has not closed (a crash looks the same to the next open): its
        // commit sits in the WAL, not yet checkpointed into the database file.
        XCTAssertTrue(VaultStore.writeAheadLogHasFrames(path: path))
        let reader = try VaultStore(path: path)
        defer { reader.close() }
        XCTAssertTrue(reader.checkedIntegrity)
        XCTAssertEqual(try reader.read { try $0.totalCount() }, 1)
    }

    func testIsEmpty_isTrueForANewVault_andFalseWithOneRecord() throws {
        let store = try VaultStore(path: path)
        defer { store.close() }
        XCTAssertTrue(try store.read { try $0.isEmpty() })
        try store.write { try $0.insert(try CredentialFixtures.record()) }
        XCTAssertFalse(try store.read { try $0.isEmpty() })
    }

    func testCorruptRecordsInSlices_findWhatTheWholeScanFinds() throws {
        let store = try VaultStore(path: path)
        defer { store.close() }
        var records: [CredentialRecord] = []
        for index in 0..<7 {
            let record = try CredentialFixtures.record(label: "r\(index)")
            records.append(record)
            try store.write { try $0.insert(record) }
        }
        // Damaged from outside, as a disk error or a hand edit would (CorruptRecordTests).
        try store.withConnection { connection in
            try connection.execute("PRAGMA ignore_check_constraints = ON")
            defer { try? connection.execute("PRAGMA ignore_check_constraints = OFF") }
            for bad in [records[1], records[5]] {
                try connection.execute("UPDATE credentials SET sealed_seed = ?1 WHERE key_id = ?2", [.blob([1, 2, 3]), .text(bad.keyId.hex)])
            }
        }
        var found: [String] = []
        var after: Int64 = 0
        var slices = 0
        while true {
            let slice = try store.read { try $0.corruptRecords(after: after, limit: 3) }
            found += slice.corrupt
            guard let last = slice.last else { break }
            after = last
            slices += 1
        }
        XCTAssertEqual(slices, 3, "7 rows in slices of 3")
        XCTAssertEqual(found, try store.read { try $0.corruptRecords() })
        XCTAssertEqual(found, [records[1].keyId.hex, records[5].keyId.hex])
    }
}
