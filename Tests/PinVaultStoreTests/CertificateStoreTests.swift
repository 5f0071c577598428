import XCTest
import PinVaultCrypto
@testable import PinVaultStore

/// `ssh_certificates` (schema v4): certificates kept by credential, each once, in the
/// order they came, gone with their credential whatever deletes it.
final class CertificateStoreTests: StoreTestCase {
    private func certificate(_ byte: UInt8, count: Int = 300) -> [UInt8] { Array(repeating: byte, count: count) }

    func testCertificates_areKeptOnceEach_inTheOrderTheyCame_andRemovedOneByOne() throws {
        let record = try CredentialFixtures.record(purpose: .ssh)
        let other = try CredentialFixtures.record(purpose: .ssh, createdAt: 1_700_000_001)
        try store.write { writer in
            try writer.insert(record)
            try writer.insert(other)
            XCTAssertTrue(try writer.addCertificate(certificate(2), keyId: record.keyId, at: 20))
            XCTAssertTrue(try writer.addCertificate(certificate(1), keyId: record.keyId, at: 10))
            XCTAssertTrue(try writer.addCertificate(certificate(3), keyId: record.keyId, at: 20))
            XCTAssertFalse(try writer.addCertificate(certificate(1), keyId: record.keyId, at: 30), "attached already")
            XCTAssertTrue(try writer.addCertificate(certificate(1), keyId: other.keyId, at: 5), "another key's are its own")
        }
        XCTAssertEqual(try store.read { try $0.certificates(keyId: record.keyId) }, [certificate(1), certificate(2), certificate(3)])
        try store.write { writer in
            XCTAssertTrue(try writer.removeCertificate(certificate(2), keyId: record.keyId))
            XCTAssertFalse(try writer.removeCertificate(certificate(2), keyId: record.keyId), "not attached any more")
            XCTAssertFalse(try writer.removeCertificate(certificate(3), keyId: other.keyId), "not attached to that key")
        }
        XCTAssertEqual(try store.read { try $0.certificates(keyId: record.keyId) }, [certificate(1), certificate(3)])
        XCTAssertEqual(try store.read { try $0.certificates(keyId: other.keyId) }, [certificate(1)])
    }

    /// A credential deleted by any path (unregistration, a wipe of the user, a reset)
    /// takes its certificates with it: none is left for a key that is gone.
    func testACredentialsCertificates_goWithIt_whateverDeletesIt() throws {
        let unregistered = try CredentialFixtures.record(user: "alice", purpose: .ssh, createdAt: 1)
        let wiped = try CredentialFixtures.record(user: "bob", purpose: .ssh, createdAt: 2)
        let reset = try CredentialFixtures.record(user: "carol", purpose: .ssh, createdAt: 3)
        try store.write { writer in
            for record in [unregistered, wiped, reset] {
                try writer.insert(record)
                _ = try writer.addCertificate(certificate(9), keyId: record.keyId, at: 1)
            }
        }
        try store.write { XCTAssertTrue(try $0.delete(keyId: unregistered.keyId)) }
        XCTAssertEqual(try rows(), 2)
        try store.write { XCTAssertEqual(try $0.deleteAll(ownerUid: 1000, user: "bob"), [wiped.keyId]) }
        XCTAssertEqual(try rows(), 1)
        try store.write { XCTAssertEqual(try $0.deleteEverything(), 1) }
        XCTAssertEqual(try rows(), 0)
    }

    /// The schema refuses what no OpenSSH certificate is: empty, over 16 KiB, or filed
    /// under a key id that is not 32 lowercase hex digits.
    func testTheSchema_refusesAnEmptyOrOversizedCertificate_andAMalformedKeyId() throws {
        let record = try CredentialFixtures.record(purpose: .ssh)
        try store.write { try $0.insert(record) }
        XCTAssertThrowsError(try store.write { _ = try $0.addCertificate([], keyId: record.keyId, at: 1) })
        XCTAssertThrowsError(try store.write { _ = try $0.addCertificate(certificate(1, count: 16385), keyId: record.keyId, at: 1) })
        XCTAssertNoThrow(try store.write { _ = try $0.addCertificate(certificate(1, count: 16384), keyId: record.keyId, at: 1) })
        XCTAssertThrowsError(try store.withConnection {
            try $0.execute("INSERT INTO ssh_certificates VALUES ('ABCDEF0123456789ABCDEF0123456789', x'01', 1)")
        })
        XCTAssertEqual(try rows(), 1)
    }

    private func rows() throws -> Int {
        guard case .integer(let count) = try store.withConnection({ try $0.scalar("SELECT count(*) FROM ssh_certificates") }) else {
            throw StoreError.invalidRecord("count")
        }
        return Int(count)
    }
}
