import Glibc
import PinVaultSystem
import PinVaultTestKit

/// The floor under every round trip: a server that does nothing but answer. It runs as
/// `pinvault-bench null-peer SOCKET BYTES` in its own process and serves one connection
/// at a time with the loop a lean C server would use (`poll`, `read`, one `send` per
/// request of a fixed reply of BYTES bytes, NUL included). Beside it, a server's round
/// trip minus the null peer's is what that server itself adds.
enum NullPeer {
    /// Serves until killed.
    static func serve(socketPath: String, replyBytes: Int) throws -> Never {
        let listener = try UnixSocket.bind(path: socketPath)
        guard listen(listener, 8) == 0 else { throw BenchError.system("listen \(socketPath)") }

        // {"parameters":{"x":"…"}} padded to replyBytes with its NUL.
        let frame = Array(#"{"parameters":{"x":""#.utf8)
        let closing = Array(#""}}"#.utf8) + [0]
        let reply = frame + [UInt8](repeating: UInt8(ascii: "x"), count: max(replyBytes - frame.count - closing.count, 0)) + closing
        // One buffer for the process's life: nothing is allocated per request.
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 16)
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            serving: while true {
                var entry = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
                guard poll(&entry, 1, -1) > 0 else { continue }
                let count = read(connection, input.baseAddress, input.count)
                guard count > 0 else { break }
                for byte in UnsafeRawBufferPointer(rebasing: input[..<count]) where byte == 0 {
                    let sent = reply.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    guard sent == reply.count else { break serving }
                }
            }
            close(connection)
        }
    }
}

/// A running `pinvault-bench null-peer`, stopped on release.
final class NullPeerInstance {
    let scratch: TemporaryDirectory
    let socketPath: String
    private let child: ChildProcess

    /// Starts this executable as a null peer answering `replyBytes` bytes per request.
    init(replyBytes: Int) throws {
        scratch = try TemporaryDirectory()
        socketPath = scratch.path + "/null.sock"
        var executable = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &executable, executable.count - 1)
        guard length > 0 else { throw BenchError.system("readlink /proc/self/exe") }
        child = try ChildProcess(
            path: String(decoding: executable[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self),
            arguments: ["null-peer", socketPath, String(replyBytes)], environment: [:], logPath: scratch.path + "/null.log")
        let deadline = Monotonic.now() + 10_000_000_000
        var status = stat()
        while stat(socketPath, &status) != 0 {
            guard child.isRunning, Monotonic.now() < deadline else { throw BenchError("the null peer did not start") }
            usleep(1_000)
        }
    }

    /// The process id.
    var pid: pid_t { child.pid }

    deinit {
        child.stop(timeout: 5)
    }

    func connect() throws -> VarlinkClient {
        try VarlinkClient(socketPath: socketPath, timeoutSeconds: 120)
    }
}
