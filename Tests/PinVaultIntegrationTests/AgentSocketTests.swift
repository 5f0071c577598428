import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// The ssh-agent socket as a peer meets it: a broken framing closes that connection
/// only, and a peer that sends half a message or floods without reading does not stop
/// the others.
final class AgentSocketTests: DaemonTestCase {
    private let identities = SSHAgentClient.identitiesRequest
    private let noIdentities = SSHAgentClient.noIdentities

    func testAnOversizedLength_closesThatConnectionOnly() throws {
        try startDaemon()
        let good = try SSHAgentClient(path: daemon.sshAgentSocketPath, timeoutSeconds: 10)
        let bad = try SSHAgentClient(path: daemon.sshAgentSocketPath, timeoutSeconds: 10)
        try bad.send([0x00, 0x04, 0x00, 0x01, 13])  // 256 KiB + 1
        XCTAssertTrue(bad.isClosedByPeer(), "an over-long message left its connection open")
        try good.send(identities)
        XCTAssertEqual(try good.receiveFrame(), noIdentities)
    }

    func testAnEmptyMessage_closesThatConnection() throws {
        try startDaemon()
        let bad = try SSHAgentClient(path: daemon.sshAgentSocketPath, timeoutSeconds: 10)
        try bad.send([0, 0, 0, 0])
        XCTAssertTrue(bad.isClosedByPeer())
    }

    func testHalfAMessage_holdsNobodyElse_andPipelinedRequestsAreAnsweredInOrder() throws {
        try startDaemon()
        let slow = try SSHAgentClient(path: daemon.sshAgentSocketPath, timeoutSeconds: 10)
        try slow.send([0, 0, 0, 200, 13, 0, 0])  // and nothing more
        let other = try SSHAgentClient(path: daemon.sshAgentSocketPath, timeoutSeconds: 10)
        try other.send(identities + [0, 0, 0, 1, 99] + identities)
        XCTAssertEqual(try other.receiveFrame(), noIdentities)
        XCTAssertEqual(try other.receiveFrame(), SSHAgentClient.failureReply)
        XCTAssertEqual(try other.receiveFrame(), noIdentities)
        XCTAssertSuccess(try client.call("org.varlink.service.GetInfo"))
    }

    func testAMalformedMessage_isAFailure_andTheConnectionGoesOn() throws {
        try startDaemon()
        let connection = try SSHAgentClient(path: daemon.sshAgentSocketPath, timeoutSeconds: 10)
        try connection.send([0, 0, 0, 4, 13, 0xff, 0xff, 0xff])
        XCTAssertEqual(try connection.receiveFrame(), SSHAgentClient.failureReply)
        try connection.send(identities)
        XCTAssertEqual(try connection.receiveFrame(), noIdentities)
    }

    /// A peer that pipelines requests and never reads its answers is stopped by its own
    /// full socket, not served into the daemon's memory: the daemon stops reading it
    /// once its answers wait, the flood stalls, and another peer is answered at once.
    func testAFloodNobodyReads_stalls_holdsNobodyElse_andKeepsMemoryBounded() throws {
        try startDaemon()
        let flooder = try SSHAgentClient(path: daemon.sshAgentSocketPath, timeoutSeconds: 10)
        let batch = [[UInt8]](repeating: identities, count: 4096).flatMap { $0 }
        let cap = 64 << 20
        var sent = 0
        var lastProgress = Date()
        while sent < cap, Date().timeIntervalSince(lastProgress) < 1 {
            let n = batch.withUnsafeBytes { Glibc.send(flooder.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
            if n > 0 {
                sent += n
                lastProgress = Date()
            } else {
                guard errno == EAGAIN else { return XCTFail("send: errno \(errno)") }
                usleep(5_000)
            }
        }
        XCTAssertLessThan(sent, cap, "the daemon read \(sent) bytes of requests whose answers nobody read")
        let other = try SSHAgentClient(path: daemon.sshAgentSocketPath, timeoutSeconds: 10)
        try other.send(identities)
        XCTAssertEqual(try other.receiveFrame(), noIdentities)
        let resident = try daemon.memory().residentBytes
        XCTAssertLessThan(resident, 64 << 20, "pinvaultd holds \(ProcessMemory.mebibytes(resident)) after a flood of \(sent) bytes")
    }
}
