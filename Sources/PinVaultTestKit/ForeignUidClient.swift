import Foundation

/// A raw Varlink client run as another uid (`setpriv`), for the rules of SECURITY.md's "Another local user":
/// a small Python program with nothing but `socket` and `json`, so that what the
/// daemon sees is a genuine peer with that uid.
public struct ForeignUidClient {
    /// `nobody`, which every Debian system has.
    public static let nobody: UInt32 = 65534

    public let socketPath: String
    public let uid: UInt32

    public init(socketPath: String, uid: UInt32 = ForeignUidClient.nobody) {
        self.socketPath = socketPath
        self.uid = uid
    }

    /// Sends `calls` in order on one connection, each after the previous reply, and
    /// returns the replies. Parameters are JSON values.
    public func call(_ calls: [(method: String, parameters: [String: Any])]) throws -> [VarlinkResponse] {
        let request: [String: Any] = [
            "socket": socketPath,
            "calls": calls.map { ["method": $0.method, "parameters": $0.parameters] as [String: Any] },
        ]
        let result = try Subprocess.run(
            "/usr/bin/setpriv",
            ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "--", "/usr/bin/python3", "-c", Self.script],
            input: try JSONSerialization.data(withJSONObject: request)
        )
        guard result.status == 0 else { throw TestKitError("client as uid \(uid) failed: \(result)") }
        return try result.standardOutput.split(separator: "\n").map { line in
            try VarlinkResponse(frame: Array(line.utf8))
        }
    }

    /// One call on its own connection.
    public func call(_ method: String, _ parameters: [String: Any] = [:]) throws -> VarlinkResponse {
        guard let reply = try call([(method, parameters)]).first else { throw TestKitError("no reply") }
        return reply
    }

    /// Reads `{"socket", "calls": [{"method", "parameters"}]}` on stdin; prints one
    /// reply per line. Also prints `{"uid": N}` to stderr, to prove who it ran as.
    static let script = #"""
    import json, os, socket, sys
    request = json.load(sys.stdin)
    sys.stderr.write(json.dumps({"uid": os.getuid()}) + "\n")
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.settimeout(30)
    connection.connect(request["socket"])
    buffer = b""
    for call in request["calls"]:
        message = {"method": call["method"]}
        if call["parameters"]:
            message["parameters"] = call["parameters"]
        connection.sendall(json.dumps(message).encode() + b"\0")
        while b"\0" not in buffer:
            chunk = connection.recv(65536)
            if not chunk:
                sys.exit("connection closed by the daemon")
            buffer += chunk
        frame, _, buffer = buffer.partition(b"\0")
        print(json.dumps(json.loads(frame)), flush=True)
    """#
}
