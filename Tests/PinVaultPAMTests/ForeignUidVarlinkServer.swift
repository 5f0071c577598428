import Foundation
import Glibc
import PinVaultTestKit

/// A fake pinvaultd served by another uid (`setpriv`, a small Python program): it
/// answers List with a well-formed credential for `user` (so a module that did not
/// check its server would go on to ask for the PIN and send it), answers Authenticate
/// with a zero signature, and records every byte it receives in `received`.
final class ForeignUidVarlinkServer {
    let socketPath: String
    private let directory: String
    private let recordPath: String
    private let process: Process

    init(uid: UInt32, user: String, ownerUid: UInt32) throws {
        var template = Array("/tmp/pinvault-fake-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestKitError("mkdtemp: errno \(errno)") }
        directory = String(cString: made)
        guard chown(directory, uid, uid) == 0, chmod(directory, 0o755) == 0 else {
            throw TestKitError("chown \(directory): errno \(errno)")
        }
        socketPath = directory + "/io.pinvault.Vault"
        recordPath = directory + "/received"
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "--",
                             "/usr/bin/python3", "-c", Self.script, socketPath, recordPath, user, String(ownerUid)]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while access(socketPath, F_OK) != 0 && Date() < deadline { usleep(20_000) }
        guard access(socketPath, F_OK) == 0 else { throw TestKitError("the fake server did not listen") }
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Every byte received so far, on every connection.
    var received: [UInt8] {
        (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: recordPath)))) ?? []
    }

    static let script = #"""
    import base64, hashlib, json, os, socket, sys
    path, record, user, owner = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    public_key = bytes(range(32))
    key_id = hashlib.blake2b(public_key, digest_size=32).digest()[:16].hex()
    credential = {"user": user, "keyId": key_id, "label": "login",
                  "publicKey": base64.b64encode(public_key).decode(), "ownerUid": owner,
                  "createdAt": "2026-01-01T00:00:00Z", "lastUsedAt": None, "failedAttempts": 0,
                  "remainingAttempts": 10, "state": "active", "lockedUntil": None,
                  "unregistrationExpiresAt": None}
    open(record, "wb").close()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    os.chmod(path, 0o666)
    listener.listen(8)
    while True:
        connection, _ = listener.accept()
        buffer = b""
        while True:
            chunk = connection.recv(65536)
            if not chunk:
                break
            with open(record, "ab") as f:
                f.write(chunk)
            buffer += chunk
            while b"\0" in buffer:
                frame, _, buffer = buffer.partition(b"\0")
                method = json.loads(frame).get("method", "")
                if method.endswith(".List"):
                    reply = {"parameters": {"credentials": [credential]}}
                else:
                    reply = {"parameters": {"keyId": key_id, "publicKey": credential["publicKey"],
                                            "signature": base64.b64encode(bytes(64)).decode(),
                                            "pinPolicyOutdated": False}}
                connection.sendall(json.dumps(reply).encode() + b"\0")
        connection.close()
    """#
}
