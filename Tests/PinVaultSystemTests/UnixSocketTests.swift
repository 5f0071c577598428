import Glibc
import PinVaultSystem
import XCTest

final class UnixSocketTests: XCTestCase {
    func testConnect_toAListeningSocket_isAcceptedThere_andCloseOnExec() throws {
        let scratch = try ScratchDirectory()
        let path = try scratch.file("server.sock")
        let listener = try UnixSocket.bind(path: path)
        defer { close(listener) }
        XCTAssertEqual(listen(listener, 1), 0)

        let client = try UnixSocket.connect(path: path)
        defer { close(client) }
        let accepted = accept(listener, nil, nil)
        XCTAssertGreaterThanOrEqual(accepted, 0)
        defer { close(accepted) }
        XCTAssertEqual(send(client, [UInt8(9)], 1, 0), 1)
        var byte: UInt8 = 0
        XCTAssertEqual(recv(accepted, &byte, 1, 0), 1)
        XCTAssertEqual(byte, 9)
        XCTAssertNotEqual(fcntl(client, F_GETFD) & FD_CLOEXEC, 0)
        XCTAssertNotEqual(fcntl(listener, F_GETFD) & FD_CLOEXEC, 0)
    }

    func testConnect_namesWhyItFailed() throws {
        let scratch = try ScratchDirectory()
        XCTAssertThrowsError(try UnixSocket.connect(path: scratch.path + "/missing.sock")) {
            XCTAssertEqual($0 as? SystemError, SystemError(call: "connect", errno: ENOENT))
        }
        // Bound and closed, never listened on: what a crashed server leaves behind.
        let stale = try scratch.file("stale.sock")
        close(try UnixSocket.bind(path: stale))
        XCTAssertThrowsError(try UnixSocket.connect(path: stale)) {
            XCTAssertEqual($0 as? SystemError, SystemError(call: "connect", errno: ECONNREFUSED))
        }
        XCTAssertThrowsError(try UnixSocket.connect(path: "/" + String(repeating: "x", count: UnixSocketAddress.maxPathBytes))) {
            XCTAssertEqual($0 as? SystemError, SystemError(call: "connect", errno: ENAMETOOLONG))
        }
        XCTAssertThrowsError(try UnixSocket.connect(path: "")) {
            XCTAssertEqual($0 as? SystemError, SystemError(call: "connect", errno: EINVAL))
        }
    }

    func testBind_makesADatagramOrNonBlockingSocket_andRefusesATakenPath_namingIt() throws {
        let scratch = try ScratchDirectory()
        let path = try scratch.file("notify.sock")
        let datagram = try UnixSocket.bind(path: path, type: SOCK_DGRAM, nonBlocking: true)
        defer { close(datagram) }
        var type: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        XCTAssertEqual(getsockopt(datagram, SOL_SOCKET, SO_TYPE, &type, &length), 0)
        XCTAssertEqual(type, Int32(SOCK_DGRAM.rawValue))
        XCTAssertNotEqual(fcntl(datagram, F_GETFL) & O_NONBLOCK, 0)

        XCTAssertThrowsError(try UnixSocket.bind(path: path)) { error in
            XCTAssertEqual(error as? SystemError, SystemError(call: "bind \(path)", errno: EADDRINUSE))
        }
    }

    func testAddress_takesAPathOrAnAbstractName_andRefusesWhatCannotBeOne() {
        XCTAssertNotNil(UnixSocketAddress(path: "/run/pinvault/io.pinvault.Vault"))
        XCTAssertNotNil(UnixSocketAddress([0] + Array("abstract".utf8)))
        XCTAssertNotNil(UnixSocketAddress(path: "/" + String(repeating: "x", count: UnixSocketAddress.maxPathBytes - 1)))
        XCTAssertNil(UnixSocketAddress(path: "/" + String(repeating: "x", count: UnixSocketAddress.maxPathBytes)))
        XCTAssertNil(UnixSocketAddress(path: ""))
        XCTAssertNil(UnixSocketAddress(Array("/a\0b".utf8)))
        XCTAssertEqual(UnixSocketAddress.maxPathBytes, 107)
    }
}
