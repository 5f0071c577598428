import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// One user with many uids (SECURITY.md, "A user with many uids"): a subordinate uid
/// range (`/etc/subuid`, rootless podman) beats every per-uid limit. Nine uids fill
/// every place the limits leave to ordinary users; the last of them still get the
/// places kept for newcomers, an admin still gets a connection (its KDF slot:
/// `AdminReserveTests` in the engine's tests), and `credentials.max_total` caps the
/// whole vault. `SixtyFourUidTests` plays the sessions, signatures and locked memory.
final class ManyUidTests: XCTestCase {
    /// Nine uids of one "user", as a subordinate range would give.
    private static let uids: [UInt32] = Array(60001...60009)
    private static let pin = "258046"
    private var daemon: TestDaemon!

    override func setUpWithError() throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            throw XCTSkip("other uids need root and setpriv")
        }
    }

    override func tearDownWithError() throws {
        if let daemon, daemon.process != nil {
            XCTAssertEqual(try daemon.stop(), 0, daemon.log.suffix(3000).description)
        }
        daemon = nil
    }

    func testNineUidsFillingEveryConnection_leaveRootAConnection() throws {
        // 9 × 8 = 72 = max_connections: before the admin reserve, the ninth uid filled the
        // last place and root got EPIPE.
        daemon = try TestDaemon(overrides: ["server": ["max_connections": "72", "max_connections_per_uid": "8"]])
        try daemon.start()
        let holders = try Self.uids.map { try ConnectionHolder(uid: $0, socketPath: daemon.socketPath, connections: 8) }
        defer { holders.forEach { $0.release() } }
        let held = holders.map(\.held)
        print("many uids: connections held per uid: \(held), \(held.reduce(0, +)) in all")
        XCTAssertGreaterThan(held.reduce(0, +), 50, "the uids did fill the server")
        XCTAssertTrue(held.contains { $0 < 8 }, "non-admins are refused before max_connections: \(held)")
        // The quarter below the admins' places is kept for uids holding fewer than 4: the
        // last uids to come still got theirs.
        XCTAssertTrue(held.allSatisfy { $0 >= 4 }, "a uid got less than the newcomers' share: \(held)")

        for _ in 0..<3 {
            let root = try daemon.connect()
            let reply = try root.vault("GetPolicy")
            XCTAssertNil(reply.error, "root was refused a connection: \(reply)")
            root.close()
        }
        // Refusals are logged as a summary, once a second.
        let deadline = Date().addingTimeInterval(5)
        while !daemon.log.contains("are kept for uids holding fewer") && Date() < deadline { usleep(100_000) }
        XCTAssertTrue(daemon.log.contains("are kept for uids holding fewer"), "the refusals are logged: \(daemon.log.suffix(2000))")
    }

    func testMaxTotal_capsTheWholeVault_whateverTheUid() throws {
        daemon = try TestDaemon(overrides: ["credentials": ["max_total": "8"]])
        try daemon.start()
        var answers: [String] = []
        for uid in Self.uids {
            let session = try ForeignPeer(socketPath: daemon.socketPath, uid: uid)
                .session([("io.pinvault.Vault.Register", ["user": "fill", "pin": Self.pin])])
            let reply = try XCTUnwrap(session.replies.first)
            answers.append(reply.error.map { "\($0) \(reply.parameters)" } ?? "ok")
        }
        print("many uids: registrations against credentials.max_total = 8: \(answers)")
        XCTAssertEqual(answers.prefix(8).filter { $0 == "ok" }.count, 8)
        XCTAssertEqual(answers.last, "io.pinvault.Vault.TooManyCredentials [\"limit\": 8]")
        // Root too: the cap is the vault's, not a uid's.
        let reply = try daemon.connect().vault("Register", ["user": "root", "pin": Self.pin])
        XCTAssertEqual(reply.error, "io.pinvault.Vault.TooManyCredentials", reply.description)
    }
}

/// A peer of `uid` that opens `connections` connections, has one GetPolicy answered on
/// each (so each was admitted), and holds them open until released.
private final class ConnectionHolder {
    private let script: UidScript
    /// Connections the daemon admitted and answered.
    let held: Int

    init(uid: UInt32, socketPath: String, connections: Int) throws {
        script = try UidScript(uid: uid, script: Self.script, arguments: [socketPath, String(connections)])
        held = Int(script.firstLine) ?? 0
    }

    func release() {
        script.release()
    }

    static let script = #"""
    import socket, sys
    path, count = sys.argv[1], int(sys.argv[2])
    held = []
    for _ in range(count):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(10)
        try:
            s.connect(path)
            s.sendall(b'{"method":"io.pinvault.Vault.GetPolicy"}\0')
            reply = b""
            while b"\0" not in reply:
                chunk = s.recv(65536)
                if not chunk:
                    raise ConnectionResetError()
                reply += chunk
            held.append(s)
        except OSError:
            s.close()
    print(len(held), flush=True)
    sys.stdin.read()
    """#
}

