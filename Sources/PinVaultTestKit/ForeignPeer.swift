import Foundation

/// A raw Varlink peer run as any uid, gid and supplementary groups (`setpriv`), for
/// the adversarial tests: authorization across several uids, `allowed_groups` and
/// `admin_group`, and flooding from uids other than the test's own.
///
/// Like `ForeignUidClient` it is a small Python program with nothing but `socket`,
/// `json`, `select` and `time`, so that the daemon sees a genuine peer of that uid.
public struct ForeignPeer: Sendable {
    public let socketPath: String
    public let uid: UInt32
    public let gid: UInt32
    /// Supplementary groups (numeric); empty clears them.
    public let groups: [UInt32]

    public init(socketPath: String, uid: UInt32, gid: UInt32? = nil, groups: [UInt32] = []) {
        self.socketPath = socketPath
        self.uid = uid
        self.gid = gid ?? uid
        self.groups = groups
    }

    /// What one connection's sequence of calls came to.
    public struct Session {
        /// One reply per call answered, in order.
        public let replies: [VarlinkResponse]
        /// Seconds from each call's first send to its (non-`Busy`, when retrying) reply.
        public let seconds: [Double]
        /// `Busy` answers that were retried.
        public let busyRetries: Int
        /// The daemon closed the connection before every call was answered.
        public let closedEarly: Bool
    }

    /// Sends `calls` in order on one connection, each after the previous reply.
    /// With `retryBusy`, a `Busy` answer is retried after its hint and the time
    /// counts toward that call.
    public func session(
        _ calls: [(method: String, parameters: [String: Any])], retryBusy: Bool = false, timeout: TimeInterval = 60
    ) throws -> Session {
        let output = try run([
            "mode": "session", "socket": socketPath, "retryBusy": retryBusy,
            "calls": calls.map { ["method": $0.method, "parameters": $0.parameters] as [String: Any] },
        ], timeout: timeout)
        var replies: [VarlinkResponse] = []
        var seconds: [Double] = []
        var busy = 0
        var closed = false
        for line in output {
            if let reply = line["reply"] {
                replies.append(try VarlinkResponse(frame: Array(try JSONSerialization.data(withJSONObject: reply))))
                seconds.append((line["seconds"] as? NSNumber)?.doubleValue ?? 0)
            } else if let count = line["busyRetries"] as? NSNumber {
                busy = count.intValue
            } else if line["closed"] != nil {
                closed = true
            }
        }
        return Session(replies: replies, seconds: seconds, busyRetries: busy, closedEarly: closed)
    }

    /// Keeps one `method` call in flight on each of `connections` connections for
    /// `seconds`, sending the next as soon as a reply arrives. Returns how many
    /// replies of each kind came back ("ok" or the error's short name), and under
    /// "unanswered" the calls still waiting when time ran out (should be 0: every
    /// call in flight is waited for, up to 30 s more).
    public func flood(
        _ method: String, _ parameters: [String: Any], connections: Int, seconds: Double
    ) throws -> [String: Int] {
        let output = try run([
            "mode": "flood", "socket": socketPath, "method": method, "parameters": parameters,
            "connections": connections, "seconds": seconds,
        ], timeout: seconds + 60)
        guard let counts = output.last?["counts"] as? [String: NSNumber] else {
            throw TestKitError("flood printed no counts: \(output)")
        }
        return counts.mapValues(\.intValue)
    }

    private func run(_ request: [String: Any], timeout: TimeInterval) throws -> [[String: Any]] {
        let groupArgument = groups.isEmpty ? "--clear-groups" : "--groups=" + groups.map(String.init).joined(separator: ",")
        let result = try Subprocess.run(
            "/usr/bin/setpriv",
            ["--reuid=\(uid)", "--regid=\(gid)", groupArgument, "--", "/usr/bin/python3", "-c", Self.script],
            input: try JSONSerialization.data(withJSONObject: request),
            timeout: timeout
        )
        guard result.status == 0 else { throw TestKitError("peer as uid \(uid) failed: \(result)") }
        return try result.standardOutput.split(separator: "\n").map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw TestKitError("peer printed \(line)")
            }
            return object
        }
    }

    static let script = #"""
    import json, select, socket, sys, time
    request = json.load(sys.stdin)

    def connect():
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(60)
        s.connect(request["socket"])
        return s

    def frame(method, parameters):
        message = {"method": method}
        if parameters:
            message["parameters"] = parameters
        return json.dumps(message).encode() + b"\0"

    def session():
        s = connect()
        buffer = b""
        busy = 0
        for call in request["calls"]:
            started = time.monotonic()
            while True:
                try:
                    s.sendall(frame(call["method"], call["parameters"]))
                    while b"\0" not in buffer:
                        chunk = s.recv(65536)
                        if not chunk:
                            raise ConnectionResetError()
                        buffer += chunk
                except (BrokenPipeError, ConnectionResetError):
                    print(json.dumps({"busyRetries": busy}))
                    print(json.dumps({"closed": True}))
                    return
                data, _, buffer = buffer.partition(b"\0")
                reply = json.loads(data)
                if request["retryBusy"] and reply.get("error") == "io.pinvault.Vault.Busy":
                    busy += 1
                    time.sleep(reply["parameters"]["retryAfterMilliseconds"] / 1000)
                    continue
                break
            print(json.dumps({"reply": reply, "seconds": time.monotonic() - started}), flush=True)
        print(json.dumps({"busyRetries": busy}))

    def flood():
        message = frame(request["method"], request["parameters"])
        sockets = [connect() for _ in range(request["connections"])]
        buffers = {s.fileno(): b"" for s in sockets}
        counts = {}
        for s in sockets:
            s.sendall(message)
        waiting = set(sockets)
        stop = time.monotonic() + request["seconds"]
        deadline = stop + 30
        while waiting and time.monotonic() < deadline:
            ready, _, _ = select.select(list(waiting), [], [], 1)
            for s in ready:
                chunk = s.recv(65536)
                if not chunk:
                    counts["closed"] = counts.get("closed", 0) + 1
                    waiting.discard(s)
                    continue
                buffers[s.fileno()] += chunk
                while b"\0" in buffers[s.fileno()]:
                    data, _, buffers[s.fileno()] = buffers[s.fileno()].partition(b"\0")
                    error = json.loads(data).get("error")
                    name = error.split(".")[-1] if error else "ok"
                    counts[name] = counts.get(name, 0) + 1
                    if time.monotonic() < stop:
                        s.sendall(message)
                    else:
                        waiting.discard(s)
        counts["unanswered"] = len(waiting)
        print(json.dumps({"counts": counts}))

    session() if request["mode"] == "session" else flood()
    """#
}
