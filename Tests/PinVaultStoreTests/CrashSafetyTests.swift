import Foundation
import Glibc
import PinVaultCrypto
import XCTest
@testable import PinVaultStore

/// Kills a writer process with SIGKILL at random moments and checks that the record it
/// rewrites is afterwards exactly one of its two versions: never missing, never mixed.
///
/// The writer is this test binary itself, re-executed with `childEnvironment` set so that
/// only `testCrashChild_rewritesRecordUntilKilled` runs, and runs the loop.
final class CrashSafetyTests: XCTestCase {
    private static let childEnvironment = "PINVAULT_STORE_CRASH_CHILD_DIRECTORY"
    /// The child writes one byte here after its first commit.
    private static let readyDescriptor: Int32 = 73
    private static let kills = 40

    func testSigkillDuringRewrites_leavesExactlyOldOrNewVersion() throws {
        let directory = try TemporaryDirectory()
        let versions = try CrashFixture.make(in: directory.path)
        let databasePath = CrashFixture.databasePath(in: directory.path)
        do {
            let store = try VaultStore(path: databasePath)
            try store.write { try $0.insert(versions[0]) }
            store.close()
        }
        var seen = Set<Int>()
        var generator = SystemRandomNumberGenerator()
        for round in 0..<Self.kills {
            let child = try CrashChild(
                test: "PinVaultStoreTests.CrashSafetyTests/testCrashChild_rewritesRecordUntilKilled",
                environment: [Self.childEnvironment: directory.path],
                readyDescriptor: Self.readyDescriptor,
                log: directory.file("child.log"))
            let ready = child.waitUntilReady(timeoutMilliseconds: 10_000)
            if ready {
                usleep(UInt32.random(in: 0...20_000, using: &generator))
            }
            let status = child.kill()
            guard ready else {
                return XCTFail("round \(round): child never became ready (\(status.map(String.init(describing:)) ?? "alive")); log:\n\(child.logTail())")
            }
            XCTAssertEqual(status, .signalled(SIGKILL), "round \(round): child did not die by SIGKILL; log:\n\(child.logTail())")

            let store = try VaultStore(path: databasePath)
            let (records, total, corrupt) = try store.read { reader in
                (try reader.credentials(ownerUid: nil, user: nil), try reader.totalCount(), try reader.corruptRecords())
            }
            store.close()
            XCTAssertEqual(total, 1, "round \(round): the record went missing or doubled")
            XCTAssertEqual(corrupt, [], "round \(round)")
            guard let record = records.first, let index = versions.firstIndex(of: record) else {
                return XCTFail("round \(round): record is neither version: \(records)")
            }
            seen.insert(index)
        }
        XCTAssertEqual(seen, [0, 1], "both versions were observed, so the child really wrote between kills")
    }

    /// The child's writer loop. Does nothing (skips) unless spawned by the test above.
    func testCrashChild_rewritesRecordUntilKilled() throws {
        guard let directory = ProcessInfo.processInfo.environment[Self.childEnvironment] else {
            throw XCTSkip("runs only as the child of testSigkillDuringRewrites_leavesExactlyOldOrNewVersion")
        }
        let versions = try CrashFixture.load(from: directory)
        let store = try VaultStore(path: CrashFixture.databasePath(in: directory))
        var announced = false
        while true {
            try store.write { writer in
                let current = try writer.credential(keyId: versions[0].keyId)
                try writer.update(current == versions[0] ? versions[1] : versions[0])
            }
            if !announced {
                var byte: UInt8 = 1
                _ = write(Self.readyDescriptor, &byte, 1)
                close(Self.readyDescriptor)
                announced = true
            }
        }
    }
}

/// The two versions of the crash test's record, sealed for real, and shared with the
/// child through two single-record stores (so that no second encoding is needed).
private enum CrashFixture {
    static func databasePath(in directory: String) -> String { directory + "/vault.sqlite" }

    static func make(in directory: String) throws -> [CredentialRecord] {
        let first = try CredentialFixtures.record(label: "version A")
        let second = try CredentialFixtures.changed(first)
        for (index, version) in [first, second].enumerated() {
            let store = try VaultStore(path: directory + "/version-\(index).sqlite")
            try store.write { try $0.insert(version) }
            store.close()
        }
        return [first, second]
    }

    static func load(from directory: String) throws -> [CredentialRecord] {
        try (0..<2).map { index in
            let store = try VaultStore(path: directory + "/version-\(index).sqlite")
            defer { store.close() }
            let records = try store.read { try $0.credentials(ownerUid: nil, user: nil) }
            guard records.count == 1 else { throw StoreError.notFound }
            return records[0]
        }
    }
}
