import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// The ssh-agent socket as a peer meets it: a broken framing closes that connection
/// only, and a peer that sends half a message or floods does not stop the others.
final class AgentSocketTests: DaemonTestCase {
    /// A raw connection to the agent socket.
    private final class AgentConnection {
        let fd: Int32

        init(path: String) throws {
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw TestKitError("socket: errno \(errno)") }
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
            }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard connected == 0 else { throw TestKitError("connect: errno \(errno)") }
        }

        deinit { close(fd) }

        func send(_ bytes: [UInt8]) {
            _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }

        /// One reply frame, or nil at EOF.
        func receiveFrame() -> [UInt8]? {
            var received: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                if received.count >= 4 {
                    let length = Int(received[0]) << 24 | Int(received[1]) << 16 | Int(received[2]) << 8 | Int(received[3])
                    if received.count >= 4 + length { return received }
                }
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard n > 0 else { return nil }
                received += chunk[..<n]
            }
        }

        /// Exactly `count` bytes, or what came before EOF.
        func receive(count: Int) -> [UInt8] {
            var received: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            while received.count < count {
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, min($0.count, count - received.count), 0) }
                guard n > 0 else { break }
                received += chunk[..<n]
            }
            return received
        }

        /// True when the daemon closed the connection (EOF within `timeout`).
        func isClosedByPeer() -> Bool {
            var byte: UInt8 = 0
            return recv(fd, &byte, 1, 0) == 0
        }
    }

    private let identities: [UInt8] = [0, 0, 0, 1, 11]
    private let noIdentities: [UInt8] = [0, 0, 0, 5, 12, 0, 0, 0, 0]

    func testAnOversizedLength_closesThatConnectionOnly() throws {
        try startDaemon()
        let good = try AgentConnection(path: daemon.sshAgentSocketPath)
        let bad = try AgentConnection(path: daemon.sshAgentSocketPath)
        bad.send([0x00, 0x04, 0x00, 0x01, 13])  // 256 KiB + 1
        XCTAssertTrue(bad.isClosedByPeer(), "an over-long message left its connection open")
        good.send(identities)
        XCTAssertEqual(good.receiveFrame(), noIdentities)
    }

    func testAnEmptyMessage_closesThatConnection() throws {
        try startDaemon()
        let bad = try AgentConnection(path: daemon.sshAgentSocketPath)
        bad.send([0, 0, 0, 0])
        XCTAssertTrue(bad.isClosedByPeer())
    }

    func testHalfAMessage_holdsNobodyElse_andPipelinedRequestsAreAnsweredInOrder() throws {
        try startDaemon()
        let slow = try AgentConnection(path: daemon.sshAgentSocketPath)
        slow.send([0, 0, 0, 200, 13, 0, 0])  // and nothing more
        let other = try AgentConnection(path: daemon.sshAgentSocketPath)
        other.send(identities + [0, 0, 0, 1, 99] + identities)
        let expected = noIdentities + [0, 0, 0, 1, 5] + noIdentities
        XCTAssertEqual(other.receive(count: expected.count), expected)
        XCTAssertSuccess(try client.call("org.varlink.service.GetInfo"))
    }

    func testAMalformedMessage_isAFailure_andTheConnectionGoesOn() throws {
        try startDaemon()
        let connection = try AgentConnection(path: daemon.sshAgentSocketPath)
        connection.send([0, 0, 0, 4, 13, 0xff, 0xff, 0xff])
        XCTAssertEqual(connection.receiveFrame(), [0, 0, 0, 1, 5])
        connection.send(identities)
        XCTAssertEqual(connection.receiveFrame(), noIdentities)
    }
}
