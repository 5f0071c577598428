import Foundation
import Glibc
import PinVaultTestKit

/// A stand-in for pinvaultd on a Unix socket that answers every call with the reply
/// frame a test scripts, whatever a real daemon would allow: user names and error texts
/// with control characters, for instance. Serves one connection at a time on its own
/// thread until stopped.
final class ScriptedDaemon: @unchecked Sendable {
    let socketPath: String
    private let directory: TemporaryDirectory
    private let listener: Int32
    private let reply: @Sendable (String) -> String
    private let lock = NSLock()
    private var stopping = false
    private let finished = DispatchSemaphore(value: 0)

    /// Listens on a fresh socket; answers each call frame (its JSON text) with the JSON
    /// text `reply` returns.
    init(reply: @escaping @Sendable (String) -> String) throws {
        directory = try TemporaryDirectory()
        socketPath = directory.path + "/scripted.sock"
        self.reply = reply
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw TestKitError("socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(socketPath.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(listener, 8) == 0 else {
            Glibc.close(listener)
            throw TestKitError("bind/listen: errno \(errno)")
        }
        Thread { [self] in serve() }.start()
    }

    deinit {
        Glibc.close(listener)
    }

    /// Stops serving and waits for the server thread.
    func stop() {
        lock.withLock { stopping = true }
        finished.wait()
    }

    private var isStopping: Bool {
        lock.withLock { stopping }
    }

    private func serve() {
        defer { finished.signal() }
        while !isStopping {
            guard readable(listener) else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            answer(connection)
            Glibc.close(connection)
        }
    }

    /// Answers each NUL-terminated call of one connection until it ends.
    private func answer(_ connection: Int32) {
        var pending: [UInt8] = []
        while !isStopping {
            guard readable(connection) else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            pending += chunk[..<count]
            while let nul = pending.firstIndex(of: 0) {
                let call = String(decoding: pending[..<nul], as: UTF8.self)
                pending.removeSubrange(...nul)
                let frame = Array(reply(call).utf8) + [0]
                let sent = frame.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard sent == frame.count else { return }
            }
        }
    }

    /// Waits up to 50 ms for input, so that `stop` is noticed.
    private func readable(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 50) > 0
    }
}
