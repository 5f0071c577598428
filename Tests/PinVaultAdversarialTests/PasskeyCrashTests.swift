import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// The security key's PIN under kill -9: the daemon SIGKILLed at the PIN check of a
/// ClientPIN getPinUvAuthTokenUsingPinWithPermissions with a wrong PIN — its Argon2id
/// returned, the answer not yet sent — and then again with the power cut there
/// (`PowerCut`: every write not yet synced lost). After the restart getPINRetries shows
/// the attempt counted: it was made durable before the check. python-fido2's ClientPin
/// (protocol two) speaks CTAP over the daemon's CTAPHID socket (Tests/Python/fido2_pin.py).
final class PasskeyCrashTests: XCTestCase {
    func testKillAtTheSecurityKeyPinCheck_afterRestart_getPINRetriesShowsTheAttemptCounted() throws {
        let python = try PythonVarlink.interpreter()
        let script = TestDaemon.repositoryRoot + "/Tests/Python/fido2_pin.py"
        let power = try PowerCut()
        let daemon = try TestDaemon(overrides: ["lockout": ["throttle_after": "5", "max_attempts": "5"]])
        let snapshots = try TemporaryDirectory()
        let snapshot = snapshots.path + "/state"
        func step(_ name: String) throws -> String {
            let result = try Subprocess.run(python, [script, daemon.ctaphidSocketPath, name])
            guard result.status == 0 else { throw TestKitError("fido2_pin.py \(name) (run `make venv`): \(result)\n\(daemon.log.suffix(2000))") }
            return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        func copy(_ source: String, to destination: String) throws {
            try? FileManager.default.removeItem(atPath: destination)
            let result = try Subprocess.run("/bin/cp", ["-a", source, destination])
            guard result.status == 0 else { throw TestKitError("cp -a \(source) \(destination): \(result)") }
        }

        // A security key with its PIN, stopped cleanly: each run starts from it.
        try daemon.start()
        _ = try step("set-pin")
        let before = try XCTUnwrap(Int(try step("retries")))
        XCTAssertEqual(try daemon.stop(), 0, daemon.log.suffix(2000).description)
        try copy(daemon.stateDirectory, to: snapshot)

        // The dry run numbers the request's writes, syncs and PIN checks.
        try daemon.start(environment: power.environment(for: daemon, points: true))
        try power.arm()
        XCTAssertEqual(try step("wrong-pin"), "PIN_INVALID")
        let events = try power.events()
        try daemon.stop(signal: SIGKILL)
        power.disarm()
        let check = try XCTUnwrap(events.first { $0.kind == "check" }, "no PIN check among \(events)")
        XCTAssert(events.contains { $0.kind == "sync" && $0.number < check.number }, "the PIN was checked before any sync: \(events)")

        for powerCut in [false, true] {
            let what = powerCut ? "a power cut" : "a SIGKILL"
            try copy(snapshot, to: daemon.stateDirectory)
            try daemon.start(environment: power.environment(for: daemon, at: PowerCut.Point(event: check.number, action: .kill)))
            try power.arm()
            XCTAssertEqual(try step("wrong-pin"), "no answer", "\(what) at \(check)")
            if powerCut { try power.cut(daemon) } else { try daemon.stop(signal: SIGKILL) }
            XCTAssertEqual(try power.events().last, check, "\(what): the daemon died elsewhere")
            power.disarm()
            try daemon.start()
            XCTAssertEqual(Int(try step("retries")), before - 1, "\(what) at the PIN check lost the attempt")
            try daemon.stop(signal: SIGKILL)
        }
        print("security key crash: a wrong PIN's getPinUvAuthTokenUsingPinWithPermissions made \(events.count) events "
            + "(\(events.filter { $0.kind == "sync" && $0.number < check.number }.count) syncs before its check, event \(check.number)); "
            + "killed there by a SIGKILL and by a power cut, getPINRetries \(before) → \(before - 1) after each restart")
    }
}
