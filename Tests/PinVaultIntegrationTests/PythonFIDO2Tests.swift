import Foundation
import PinVaultTestKit
import XCTest

/// Yubico's python-fido2 (PyPI `fido2`) opens pinvaultd's CTAPHID socket as a HID security
/// key: its `CtapHidDevice` over a `CtapHidConnection` on the Unix socket, 64-byte reports
/// each way (Tests/Python/ctaphid_socket.py). Its INIT checks the nonce and takes the
/// channel; PING, WINK and a CBOR message go over it.
final class PythonFIDO2Tests: DaemonTestCase {
    private static let script = #"""
    import json, sys
    sys.path.insert(0, sys.argv[2])
    from ctaphid_socket import open_device
    from fido2.hid import CAPABILITY
    from fido2.ctap2 import Ctap2

    device = open_device(sys.argv[1])
    message = bytes(range(256)) * 4
    result = {
        "version": device.version,
        "cbor": bool(device.capabilities & CAPABILITY.CBOR),
        "wink": bool(device.capabilities & CAPABILITY.WINK),
        "nmsg": bool(device.capabilities & CAPABILITY.NMSG),
        "ping": device.ping(message) == message,
        "getInfo": sorted(Ctap2(device).get_info().versions),
    }
    device.wink()
    result["winked"] = True
    device.close()
    print(json.dumps(result), flush=True)
    """#

    func testPythonFIDO2OpensTheSocketAsAHIDDevice() throws {
        try startDaemon()
        let python = try PythonVarlink.interpreter()
        let result = try Subprocess.run(
            python, ["-c", Self.script, daemon.ctaphidSocketPath, TestDaemon.repositoryRoot + "/Tests/Python"])
        XCTAssertEqual(result.status, 0, "python-fido2 (run `make venv`): \(result.description)")
        let line = try XCTUnwrap(result.standardOutput.split(separator: "\n").last, result.description)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        XCTAssertEqual(object["version"] as? Int, 2)
        XCTAssertEqual(object["cbor"] as? Bool, true)
        XCTAssertEqual(object["wink"] as? Bool, true)
        XCTAssertEqual(object["nmsg"] as? Bool, true, "NMSG: no CTAPHID_MSG (CTAP1/U2F) messages")
        XCTAssertEqual(object["ping"] as? Bool, true)
        XCTAssertEqual(object["winked"] as? Bool, true)
        // python-fido2's own CTAP2 layer reads the daemon authenticator's GetInfo.
        XCTAssertEqual(object["getInfo"] as? [String], ["FIDO_2_0", "FIDO_2_1"])
    }
}
