import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// pinvault-uhid (its ASan/UBSan build) between a kernel this test plays (`UHIDKernel`:
/// each device a SOCK_SEQPACKET connection, each message a uhid event) and a real
/// pinvaultd: the device it creates is a FIDO security key; a CTAPHID INIT written to it
/// as UHID_OUTPUT comes back from the daemon as UHID_INPUT2; the daemon knows the
/// relay's connection as the seat user's uid (that user's security key, not another's);
/// a seat switch removes the device and closes its connection (the old channel is gone),
/// no active user leaves no device; malformed events and a daemon that goes away and
/// comes back cost nothing. The seat user is given on pinvault-uhid's standard input
/// (no logind here). A real /dev/uhid is exercised only where the kernel has one.
final class UHIDBridgeTests: DaemonTestCase {
    private var kernel: UHIDKernel?
    private var bridge: UHIDBridge?

    override func tearDownWithError() throws {
        if let bridge, bridge.process.isRunning { _ = bridge.stop() }
        bridge = nil
        kernel = nil
        try super.tearDownWithError()
    }

    /// `kernel`: a `UHIDKernel` of this test's; `kernelPath`: a kernel another process
    /// plays; neither: /dev/uhid.
    private func startBridge(kernel useKernel: Bool = true, kernelPath: String? = nil) throws {
        guard getuid() == 0 else {
            try RootOnlySuites.skip(self, "pinvault-uhid's relay becomes the seat user (setuid) and the tests make local users") {
                XCTSkip($0)
            }
        }
        try startDaemon()
        let kernel = useKernel ? try UHIDKernel(path: daemon.root + "/uhid.sock") : nil
        self.kernel = kernel
        bridge = try UHIDBridge(
            ctaphidSocket: daemon.ctaphidSocketPath, kernelPath: kernel?.path ?? kernelPath, directory: daemon.root)
    }

    /// GetInfo's option clientPin on `channel`: whether the daemon holds a PIN (a security
    /// key) for the uid it sees at the other end.
    private func clientPin(_ device: any CTAPHIDReports, _ channel: UInt32) throws -> Bool? {
        try device.send(command: 0x90, channel: channel, payload: [0x04])
        let answer = try device.receiveMessage()
        XCTAssertEqual(answer.channel, channel)
        XCTAssertEqual(answer.payload.first, 0x00, "\(answer)")
        let key: [UInt8] = [0x69] + Array("clientPin".utf8)
        guard let range = answer.payload.firstRange(of: key), range.upperBound < answer.payload.count else { return nil }
        switch answer.payload[range.upperBound] {
        case 0xF5: return true
        case 0xF4: return false
        default: return nil
        }
    }

    private func activeConnections() throws -> Int? {
        try client.succeeding("GetStats").object("counters")?.int("activeConnections")
    }

    private func assertStoppedCleanly(_ bridge: UHIDBridge, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(bridge.stop(), 0, bridge.log, file: file, line: line)
        XCTAssertNil(bridge.sanitizerFinding, bridge.log, file: file, line: line)
    }

    func testTheSeatUsersKeyReachesTheDaemonAsThatUser_andASwitchEndsItsDeviceAndConnection() throws {
        try startBridge()
        let (kernel, bridge) = (try XCTUnwrap(kernel), try XCTUnwrap(bridge))
        let alice = try LocalUser(), bob = try LocalUser()
        // Alice has a security key (a PIN); Bob has none.
        let registered = try ForeignUidClient(socketPath: daemon.socketPath, uid: alice.uid)
            .call("io.pinvault.Vault.Register", ["user": alice.name, "pin": pin, "purpose": "webauthn"])
        XCTAssertNil(registered.error, "\(registered)")

        try bridge.activate(alice.uid)
        let (aliceDevice, create) = try kernel.nextDevice()
        let descriptorSize = Int(create[UHIDKernel.Event.descriptorSizeOffset]) | Int(create[UHIDKernel.Event.descriptorSizeOffset + 1]) << 8
        XCTAssertEqual(descriptorSize, UHIDKernel.fidoDescriptor.count)
        let descriptor = Array(create[UHIDKernel.Event.descriptorOffset..<min(create.count, UHIDKernel.Event.descriptorOffset + descriptorSize)])
        XCTAssertEqual(descriptor, UHIDKernel.fidoDescriptor, "not a FIDO security key's report descriptor")
        XCTAssertEqual(create[UHIDKernel.Event.busOffset], 0x03, "BUS_USB")

        // A CTAPHID INIT as UHID_OUTPUT; the daemon's answer as UHID_INPUT2.
        let aliceChannel = try aliceDevice.initialize()
        let payload = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        try aliceDevice.send(command: 0x81, channel: aliceChannel, payload: payload)
        XCTAssertEqual(try aliceDevice.receiveMessage(), .init(channel: aliceChannel, command: 0x81, payload: payload))
        XCTAssertEqual(try clientPin(aliceDevice, aliceChannel), true, "the daemon does not see Alice at the other end")

        // Bob's turn at the seat: Alice's device and connection end before Bob's begin.
        try bridge.activate(bob.uid)
        XCTAssertTrue(aliceDevice.isClosed(within: 30), "Alice's device outlived the switch")
        let (bobDevice, _) = try kernel.nextDevice()
        let bobChannel = try bobDevice.initialize()
        XCTAssertEqual(try clientPin(bobDevice, bobChannel), false, "Bob's relay reached the daemon as someone with a PIN")
        try bobDevice.send(command: 0x81, channel: aliceChannel, payload: [1])
        XCTAssertEqual(try bobDevice.receiveMessage().error, 0x0B, "Alice's channel survived the switch")
        XCTAssertTrue(try eventually(timeout: 20) { try activeConnections() == 2 }, "this client and Bob's relay, no other")

        // Nobody at the seat: no device at all.
        try bridge.activate(nil)
        XCTAssertTrue(bobDevice.isClosed(within: 30), "a device stayed with nobody at the seat")
        XCTAssertTrue(try eventually(timeout: 20) { try activeConnections() == 1 }, "Bob's connection outlived his turn")

        // Alice again: a new device, a new connection, her key.
        try bridge.activate(alice.uid)
        let (again, _) = try kernel.nextDevice()
        XCTAssertEqual(try clientPin(again, try again.initialize()), true)
        assertStoppedCleanly(bridge)
        XCTAssertTrue(again.isClosed(within: 30), "the device outlived pinvault-uhid")
    }

    func testMalformedEventsAndADaemonThatGoesAwayLeaveTheKeyServing() throws {
        try startBridge()
        let (kernel, bridge) = (try XCTUnwrap(kernel), try XCTUnwrap(bridge))
        let user = try LocalUser()
        try bridge.activate(user.uid)
        let (device, _) = try kernel.nextDevice()
        let event = UHIDKernel.Event.self

        func output(size: UInt16, reportNumber: UInt8, length: Int = 4 + 4096 + 3) -> [UInt8] {
            var bytes = [UInt8](repeating: 0x5A, count: length)
            UHIDKernel.Device.put(event.output, at: 0, in: &bytes)
            if length > 4 { bytes[4] = reportNumber }
            if length >= 4 + 4096 + 3 {
                bytes[4 + 4096] = UInt8(size & 0xFF)
                bytes[4 + 4096 + 1] = UInt8(size >> 8)
                bytes[4 + 4096 + 2] = event.outputReport
            }
            return bytes
        }
        var malformed: [[UInt8]] = [
            [1], [1, 2, 3],
            output(size: 65, reportNumber: 0, length: 100),  // cut short
            output(size: 63, reportNumber: 0), output(size: 66, reportNumber: 0), output(size: 4096, reportNumber: 0),
            output(size: 65535, reportNumber: 0), output(size: 0, reportNumber: 0),
            output(size: 65, reportNumber: 1),  // a report number the device has not
            [99, 0, 0, 0] + [UInt8](repeating: 0xFF, count: 60),  // an unknown event
            [11, 0, 0, 0] + [UInt8](repeating: 0, count: 300),  // UHID_CREATE2, which only a writer sends
            [12, 0, 0, 0, 64, 0] + [UInt8](repeating: 0, count: 64),  // UHID_INPUT2, likewise
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            var bytes = (0..<Int.random(in: 1...event.size, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if bytes.count >= 4 { UHIDKernel.Device.put([event.output, 99, 0x8000_0000][Int.random(in: 0...2)], at: 0, in: &bytes) }
            if bytes.count >= 4 + 4096 + 3 { bytes[4 + 4096 + 1] = 0x10 }  // a size of at least 4096
            malformed.append(bytes)
        }
        for bytes in malformed {
            do { try device.write(event: bytes) } catch { XCTFail("\(error) \(bytes.prefix(8)): \(bridge.log)"); return }
        }
        // GET_REPORT (the device has no feature report) is answered, not left to time out.
        var getReport = [UInt8](repeating: 0, count: 4 + 6)
        UHIDKernel.Device.put(event.getReport, at: 0, in: &getReport)
        UHIDKernel.Device.put(0xBEEF, at: 4, in: &getReport)
        try device.write(event: getReport)
        let reply = try device.nextEvent()
        XCTAssertEqual(reply.type, event.getReportReply)
        XCTAssertEqual(Array(reply.bytes[4..<8]), [0xEF, 0xBE, 0, 0], "the request's id")
        XCTAssertEqual(Array(reply.bytes[8..<10]), [UInt8(EIO), 0], "EIO")

        let channel = try device.initialize()
        try device.send(command: 0x81, channel: channel, payload: [1, 2, 3])
        XCTAssertEqual(try device.receiveMessage().payload, [1, 2, 3])

        // The daemon goes away: the report written meanwhile is dropped, the device stays;
        // the daemon back, the next INIT reaches it on a new connection.
        client = nil
        XCTAssertEqual(try daemon.stop(), 0, daemon.log)
        try device.send(command: 0x86, channel: CTAPHIDClient.broadcast, payload: [1, 1, 1, 1, 1, 1, 1, 1])
        try daemon.start()
        client = try daemon.connect()
        let after = try device.initialize(nonce: [2, 2, 2, 2, 2, 2, 2, 2])
        try device.send(command: 0x81, channel: after, payload: [4, 5])
        XCTAssertEqual(try device.receiveMessage().payload, [4, 5])
        XCTAssertTrue(bridge.process.isRunning)
        XCTAssertFalse(kernel.opensDevice(within: 0), "the relay was restarted: a second device")
        XCTAssertTrue(bridge.log.contains("skipped a malformed uhid event"), bridge.log)
        XCTAssertEqual(bridge.terminate(), 0, bridge.log)
        XCTAssertNil(bridge.sanitizerFinding, bridge.log)
        XCTAssertTrue(device.isClosed(within: 30), "the device outlived pinvault-uhid")
    }

    func testRootAndUsersWithoutAnAccountGetNoDevice_andARelayThatDiesIsStartedAgain() throws {
        try startBridge()
        let (kernel, bridge) = (try XCTUnwrap(kernel), try XCTUnwrap(bridge))
        let user = try LocalUser()
        // Root at the seat, then a uid no account has: neither gets a device (the first
        // device opened is the real user's).
        try bridge.activate(0)
        XCTAssertTrue(eventually(timeout: 30) { bridge.log.contains("root gets no security key") }, bridge.log)
        try bridge.activate(4_000_000_000)
        XCTAssertTrue(eventually(timeout: 30) { bridge.log.contains("uid 4000000000: no passwd entry") }, bridge.log)
        try bridge.activate(user.uid)
        let (device, _) = try kernel.nextDevice()
        XCTAssertEqual(try clientPin(device, try device.initialize()), false)
        XCTAssertFalse(bridge.log.contains("security key for uid 0 "), bridge.log)
        XCTAssertFalse(bridge.log.contains("security key for uid 4000000000"), bridge.log)

        // The user kills the relay (it runs as the user): a new one, a new device.
        let relay = try XCTUnwrap(Self.relayPid(in: bridge.log, uid: user.uid), bridge.log)
        let killed = try Subprocess.run("/usr/bin/setpriv", user.setpriv(["/bin/kill", "-KILL", String(relay)]))
        XCTAssertEqual(killed.status, 0, "\(killed)")
        XCTAssertTrue(device.isClosed(within: 30))
        let (again, _) = try kernel.nextDevice()
        _ = try again.initialize()
        assertStoppedCleanly(bridge)
    }

    /// Yubico's python-fido2 as the browser, through the virtual device rather than the
    /// socket (Tests/Python/fido2_client.py, with Tests/Python/ctaphid_socket.py playing
    /// the kernel): setPIN, an ES256 registration and a discoverable sign-in verified by
    /// its Fido2Server, another rp id refused, a wrong PIN — all counted to the seat
    /// user's uid, which only the relay's connection can have told the daemon.
    func testFido2ClientRegistersAndSignsIn_throughTheVirtualDevice_asTheSeatUser() throws {
        let python = try PythonVarlink.interpreter()
        let kernelPath = "/tmp/pinvault-uhid-kernel-\(UInt32.random(in: 0...UInt32.max))"
        try startBridge(kernel: false, kernelPath: kernelPath)
        let bridge = try XCTUnwrap(bridge)
        let user = try LocalUser()
        let logPath = daemon.root + "/fido2_client.log"
        let browser = try ChildProcess(
            path: python, arguments: [TestDaemon.repositoryRoot + "/Tests/Python/fido2_client.py", "uhid-kernel:" + kernelPath],
            environment: ChildProcess.inheritedEnvironment(), logPath: logPath)
        defer { unlink(kernelPath) }
        XCTAssertTrue(eventually(timeout: 60) { FileManager.default.fileExists(atPath: kernelPath) || !browser.isRunning })
        try bridge.activate(user.uid)
        let status = browser.waitForExit(timeout: 120)
        let output = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        XCTAssertEqual(status, 0, "python-fido2 (run `make venv`): \(output)\n\(bridge.log)")
        XCTAssertTrue(output.hasSuffix("ok\n"), output)

        let securityKeys = try client.list(ownerUid: Int(user.uid)).filter { $0["purpose"] as? String == "webauthn" }
        XCTAssertEqual(securityKeys.count, 1, "\(securityKeys)")
        XCTAssertEqual(securityKeys.first?["ownerUid"] as? Int, Int(user.uid))
        XCTAssertEqual(securityKeys.first?["failedAttempts"] as? Int, 1, "\(securityKeys)")
        XCTAssertTrue(try client.list().filter { $0["purpose"] as? String == "webauthn" }.isEmpty, "root got a security key")
        assertStoppedCleanly(bridge)
    }

    /// The pid in "security key for uid N (relay PID)".
    private static func relayPid(in log: String, uid: UInt32) -> pid_t? {
        let marker = "security key for uid \(uid) (relay "
        guard let line = log.split(separator: "\n").last(where: { $0.contains(marker) }),
              let range = line.range(of: marker) else { return nil }
        return pid_t(line[range.upperBound...].prefix(while: \.isNumber))
    }

    /// With the kernel's own /dev/uhid: the device appears as a hidraw node with the FIDO
    /// descriptor, and an INIT written to it is answered by the daemon. Skipped, loudly,
    /// where the kernel has no uhid (this machine: no module, no modprobe).
    func testARealUHIDDeviceAppearsAsAHidrawSecurityKey() throws {
        guard FileManager.default.fileExists(atPath: "/dev/uhid") else {
            let message = "UHIDBridgeTests: /dev/uhid is absent (the uhid module is not loaded): the kernel's side of pinvault-uhid is NOT TESTED here"
            FileHandle.standardError.write(Data(("*** " + message + " ***\n").utf8))
            throw XCTSkip(message)
        }
        try startBridge(kernel: false)
        let bridge = try XCTUnwrap(bridge)
        let user = try LocalUser()
        try bridge.activate(user.uid)
        var node: String?
        XCTAssertTrue(eventually(timeout: 30) {
            node = Self.hidrawNode(named: "PinVault security key")
            return node != nil
        }, bridge.log)
        let hidraw = try XCTUnwrap(node)
        let descriptor = try Data(contentsOf: URL(fileURLWithPath: "/sys/class/hidraw/\(hidraw)/device/report_descriptor"))
        XCTAssertEqual(Array(descriptor), UHIDKernel.fidoDescriptor)
        let device = try HidrawDevice(path: "/dev/" + hidraw)
        let channel = try device.initialize()
        try device.send(command: 0x81, channel: channel, payload: [7, 7])
        XCTAssertEqual(try device.receiveMessage().payload, [7, 7])
        assertStoppedCleanly(bridge)
    }

    private static func hidrawNode(named name: String) -> String? {
        let nodes = (try? FileManager.default.contentsOfDirectory(atPath: "/sys/class/hidraw")) ?? []
        return nodes.first { node in
            let uevent = (try? String(contentsOfFile: "/sys/class/hidraw/\(node)/device/uevent", encoding: .utf8)) ?? ""
            return uevent.contains("HID_NAME=\(name)\n")
        }
    }
}

/// A hidraw node as libfido2 uses one: a 65-byte write (report number 0, the report),
/// 64-byte reads.
private final class HidrawDevice: CTAPHIDReports {
    let fd: Int32

    init(path: String) throws {
        fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw TestKitError("open \(path): errno \(errno)") }
    }

    deinit { close(fd) }

    func send(report: [UInt8]) throws {
        let bytes = [0] + report
        guard bytes.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == bytes.count else {
            throw TestKitError("hidraw write: errno \(errno)")
        }
    }

    func receiveReport() throws -> [UInt8] {
        guard UHIDKernel.readable(fd, timeout: 30) else { throw TestKitError("no report within 30 s") }
        var report = [UInt8](repeating: 0, count: 64)
        let length = report.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard length == 64 else { throw TestKitError("hidraw read \(length): errno \(errno)") }
        return report
    }
}
