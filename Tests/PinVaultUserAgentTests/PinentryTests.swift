import Foundation
import Glibc
import PinVaultCrypto
import PinVaultTestKit
import XCTest

/// The agent's pinentry, in Assuan: against a stand-in that records the conversation and
/// answers in Assuan's escapes, and against Debian's real `pinentry-tty` on a
/// pseudo-terminal this test types into.
final class PinentryTests: XCTestCase {
    private var fixture: AgentFixture!

    override func setUpWithError() throws {
        fixture = try AgentFixture()
    }

    override func tearDown() {
        fixture?.stop()
        fixture = nil
    }

    /// A pinentry in Python: greets, answers OK to every command (logging each) but an
    /// option it does not know, and to GETPIN a wrong PIN the first time it runs, the
    /// right one after, as `D` lines with a percent escape in them.
    private let standIn = """
        #!/usr/bin/python3
        import os, sys
        log = open(sys.argv[0] + ".log", "a")
        runs = sys.argv[0] + ".runs"
        count = int(open(runs).read()) if os.path.exists(runs) else 0
        open(runs, "w").write(str(count + 1))
        print("OK Pleased to meet you", flush=True)
        pins = iter(["370591"] if count == 0 else ["258046"])
        for line in sys.stdin:
            command = line.rstrip("\\n")
            log.write(command + "\\n"); log.flush()
            if command == "GETPIN":
                pin = next(pins)
                print("D " + pin[:2] + "%" + format(ord(pin[2]), "02X"), flush=True)
                print("D " + pin[3:], flush=True)
            if command == "BYE":
                print("OK closing connection", flush=True)
                break
            if command.startswith("OPTION ttytype"):
                print("ERR 83886254 Unknown option <Pinentry>", flush=True)
                continue
            print("OK", flush=True)

        """

    func testAnAssuanPinentry_isAskedInItsProtocol_andItsPercentEscapedPinIsRead() throws {
        let path = fixture.directory.path + "/pinentry-stand-in"
        try standIn.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        try fixture.startAgent(settings: ["pinentry = \"\(path)\""], environment: ["TERM": "xterm"])
        let signature = try XCTUnwrap(try fixture.sign(), fixture.log)
        let signed = SSHAgentClient.userauthRequest(publicKey: fixture.publicKey)
        XCTAssertTrue(signed.withUnsafeBytes { Ed25519.verify(signature: signature, message: $0, publicKey: fixture.publicKey) })
        // The agent says BYE and goes on without waiting for the program to leave.
        var log = ""
        let deadline = Date().addingTimeInterval(60)
        repeat {
            log = (try? String(contentsOfFile: path + ".log", encoding: .utf8)) ?? ""
            if log.hasSuffix("BYE\n") { break }
            usleep(20_000)
        } while Date() < deadline
        XCTAssertTrue(log.contains("SETTITLE PinVault\n"), log)
        XCTAssertTrue(log.contains("SETDESC Use your PinVault key alice (ssh)%0ASHA256:"), log)
        XCTAssertTrue(log.contains("SETPROMPT PIN:\nGETPIN\n"), log)
        XCTAssertTrue(log.contains("SETERROR Wrong PIN: 4 attempts left\nGETPIN\n"), "the second question says why: \(log)")
        XCTAssertTrue(log.contains("BYE\n"), log)
    }

    /// A pinentry that lingers after BYE holds up the reaping of no later one: the second
    /// prompt's program is reaped as soon as it leaves, while the first still runs.
    func testAPinentryThatLingersAfterBye_keepsNoLaterOneUnreaped() throws {
        let path = fixture.directory.path + "/pinentry-lingering"
        try """
            #!/usr/bin/python3
            import os, sys, time
            runs = sys.argv[0] + ".runs"
            count = int(open(runs).read()) if os.path.exists(runs) else 0
            open(runs, "w").write(str(count + 1))
            open(sys.argv[0] + ".pid" + str(count), "w").write(str(os.getpid()))
            print("OK Pleased to meet you", flush=True)
            for line in sys.stdin:
                command = line.rstrip("\\n")
                if command == "GETPIN":
                    print("D 258046", flush=True)
                if command == "BYE":
                    print("OK closing connection", flush=True)
                    if count == 0:
                        time.sleep(3600)
                    sys.exit(0)
                print("OK", flush=True)

            """.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        func pid(_ run: Int) -> pid_t? {
            (try? String(contentsOfFile: path + ".pid\(run)", encoding: .utf8)).flatMap { pid_t($0) }
        }
        defer { if let first = pid(0) { kill(first, SIGKILL) } }
        try fixture.startAgent(settings: ["pinentry = \"\(path)\"", "prompt_timeout_seconds = 3600"], environment: ["TERM": "xterm"])
        XCTAssertNotNil(try fixture.sign(), fixture.log)
        // ssh-add -D: the agent locks its keys, so the next signature asks again.
        try SSHAgentClient(path: fixture.agentSocket, timeoutSeconds: 120).roundTrip([0, 0, 0, 1, 19], expecting: 6)
        XCTAssertNotNil(try fixture.sign(), fixture.log)
        let first = try XCTUnwrap(pid(0)), second = try XCTUnwrap(pid(1), "the second signature asked nobody")

        // Gone from /proc once reaped; a zombie until then. A minute, against the first
        // program's hour of lingering and prompt deadline.
        let deadline = Date().addingTimeInterval(60)
        while FileManager.default.fileExists(atPath: "/proc/\(second)") && Date() < deadline { usleep(20_000) }
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/proc/\(second)"), "the second pinentry was left unreaped behind the first")
        let state = (try? String(contentsOfFile: "/proc/\(first)/stat", encoding: .utf8)) ?? ""
        XCTAssertTrue(state.contains(") S ") || state.contains(") R "), "the first pinentry still lingers: \(state)")
    }

    /// Debian's pinentry-tty asks on the terminal the agent was given (`--tty`): a
    /// pseudo-terminal whose other end this test reads and types into.
    func testDebiansPinentryTty_asksOnTheTerminal_andThePinTypedThereUnlocks() throws {
        guard access("/usr/bin/pinentry-tty", X_OK) == 0 else {
            throw XCTSkip("no /usr/bin/pinentry-tty (make test-deps installs pinentry-tty)")
        }
        // posix_openpt, unlockpt and ptsname, as glibc does them on devpts (Swift's Glibc
        // hides those behind _XOPEN_SOURCE, and the ioctl numbers behind macros):
        // TIOCSPTLCK = _IOW('T', 0x31, int), TIOCGPTN = _IOR('T', 0x30, unsigned int).
        let TIOCSPTLCK: UInt = 0x4004_5431, TIOCGPTN: UInt = 0x8004_5430
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        XCTAssertGreaterThanOrEqual(master, 0)
        defer { close(master) }
        var unlock: Int32 = 0
        XCTAssertEqual(ioctl(master, TIOCSPTLCK, &unlock), 0)
        var number: UInt32 = 0
        XCTAssertEqual(ioctl(master, TIOCGPTN, &number), 0)
        let terminal = "/dev/pts/\(number)"
        try fixture.startAgent(
            settings: ["pinentry = \"/usr/bin/pinentry-tty\""], environment: ["TERM": "xterm"], arguments: ["--tty", terminal]
        )
        let signer = try SSHAgentClient(path: fixture.agentSocket, timeoutSeconds: 60)
        try signer.send(SSHAgentClient.signRequest(
            publicKey: fixture.publicKey, data: SSHAgentClient.userauthRequest(publicKey: fixture.publicKey)
        ))
        // What pinentry-tty writes, until it asks.
        var shown: [UInt8] = []
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline && shown.firstRange(of: Array("PIN:".utf8)) == nil {
            var entry = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 100) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let got = read(master, &chunk, chunk.count)
            if got > 0 { shown += chunk[..<got] }
        }
        let screen = String(decoding: shown, as: UTF8.self)
        XCTAssertTrue(screen.contains("Use your PinVault key alice (ssh)"), screen)
        XCTAssertTrue(screen.contains("PIN:"), "pinentry-tty never asked: \(screen)\n\(fixture.log)")
        _ = Array("258046\r".utf8).withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
        let reply = try signer.receiveFrame()
        XCTAssertEqual(reply[4], SSHAgentClient.signResponse, "\(fixture.log)")
        XCTAssertEqual(try fixture.credential()["failedAttempts"] as? Int, 0)
    }
}
