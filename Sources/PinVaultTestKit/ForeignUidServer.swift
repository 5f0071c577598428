import Foundation
import Glibc

/// A Unix socket served by another uid (`setpriv`): where someone else could sit, at
/// the path a client was told to use. A small Python program accepts one connection,
/// keeps every byte it receives until the client closes it (answering `answer` after
/// the first NUL-terminated frame, when given), and writes them out for `received`.
public final class ForeignUidServer {
    public let socketPath: String
    public let uid: UInt32
    private let directory: TemporaryDirectory
    private let process: ChildProcess
    private let output: String

    /// Starts serving as `uid` and waits until it listens.
    public init(uid: UInt32 = ForeignUidClient.nobody, answer: String? = nil) throws {
        self.uid = uid
        directory = try TemporaryDirectory(mode: 0o777)  // the server's uid makes its files in it
        socketPath = directory.path + "/io.pinvault.Vault"
        output = directory.path + "/received"
        process = try ChildProcess(
            path: "/usr/bin/setpriv",
            arguments: ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "--", "/usr/bin/python3", "-c", Self.script,
                        socketPath, output, answer ?? ""],
            environment: ["PATH": "/usr/bin:/bin"], logPath: directory.path + "/server.log"
        )
        let deadline = Date().addingTimeInterval(30)
        while access(socketPath, F_OK) != 0 {
            guard process.isRunning, Date() < deadline else {
                throw TestKitError("the server as uid \(uid) did not listen: \(log)")
            }
            usleep(10_000)
        }
    }

    deinit {
        _ = process.stop(signal: SIGKILL, timeout: 10)
    }

    private var log: String { (try? String(contentsOfFile: directory.path + "/server.log", encoding: .utf8)) ?? "" }

    /// Everything the client sent, once it closed the connection.
    public func received(timeout: Double = 60) throws -> [UInt8] {
        guard process.waitForExit(timeout: timeout) == 0 else { throw TestKitError("the server as uid \(uid) failed: \(log)") }
        let hex = try String(contentsOfFile: output, encoding: .utf8)
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex),
              let byte = UInt8(hex[index..<next], radix: 16) {
            bytes.append(byte)
            index = next
        }
        return bytes
    }

    /// argv: socket path, output path, the answer (may be empty). Listens under another
    /// name and renames, so that the path exists only once connecting to it works.
    static let script = #"""
    import os, socket, sys
    path, output, answer = sys.argv[1], sys.argv[2], sys.argv[3].encode()
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path + ".new")
    os.chmod(path + ".new", 0o666)  # any uid may connect, as to pinvaultd's socket
    server.listen(1)
    os.rename(path + ".new", path)
    connection, _ = server.accept()
    connection.settimeout(50)
    data = b""
    try:
        while True:
            chunk = connection.recv(65536)
            if not chunk:
                break
            data += chunk
            if answer and b"\0" in data:
                connection.sendall(answer + b"\0")
                answer = b""
    except socket.timeout:
        pass
    with open(output, "w") as received:
        received.write(data.hex())
    """#
}
