import PinVaultSSHProtocol
import XCTest

/// What both agents offer: each key, then its certificates, under its comment — and never
/// an IDENTITIES_ANSWER longer than ssh takes (it would refuse it, and every key in it).
final class SSHAgentOfferTests: XCTestCase {
    func testEachKey_thenItsCertificates_underItsComment() {
        let offers = [
            SSHAgentOffer(algorithm: .ed25519, publicKey: Array(repeating: 1, count: 32), user: "alice", label: "laptop", certificates: [[7, 7], [8]]),
            SSHAgentOffer(algorithm: .ed25519, publicKey: Array(repeating: 2, count: 32), user: "alice", label: nil, certificates: []),
        ]
        XCTAssertEqual(SSHAgentOffer.identities(offers), [
            SSHAgentReply.Identity(keyBlob: SSHKey(algorithm: .ed25519, publicKey: Array(repeating: 1, count: 32)).blob, comment: "alice (laptop)"),
            SSHAgentReply.Identity(keyBlob: [7, 7], comment: "alice (laptop) (certificate)"),
            SSHAgentReply.Identity(keyBlob: [8], comment: "alice (laptop) (certificate)"),
            SSHAgentReply.Identity(keyBlob: SSHKey(algorithm: .ed25519, publicKey: Array(repeating: 2, count: 32)).blob, comment: "alice"),
        ])
    }

    /// 16 keys of 16 certificates of 16 KiB each: every key is listed, certificates in
    /// order while they fit, and the answer stays within AGENT_MAX_LEN.
    func testAnAnswerPastTheLimit_keepsEveryKey_andDropsTheCertificatesThatDoNotFit() {
        let offers = (0..<16).map { index in
            SSHAgentOffer(algorithm: .ed25519, publicKey: Array(repeating: UInt8(index), count: 32), user: "u\(index)", label: nil,
                          certificates: (0..<16).map { Array(repeating: UInt8($0), count: 16 * 1024) })
        }
        let identities = SSHAgentOffer.identities(offers)
        XCTAssertEqual(identities.filter { $0.keyBlob.count == 51 }.count, 16, "a key was dropped")
        XCTAssertLessThan(identities.count, 16 * 17)
        let answer = SSHAgentReply.identities(identities)
        XCTAssertLessThanOrEqual(answer.count - 4, SSHAgentLimits.maxMessageBytes)
        XCTAssertGreaterThan(answer.count - 4, SSHAgentLimits.maxMessageBytes - 16 * 1024 - 64, "room left unused")
    }
}
