import Foundation
import Glibc
import PinVaultSystem

/// A stand-in for pinvaultd on a Unix socket that answers each call frame with whatever
/// a test scripts, whatever a real daemon would allow: canned replies (every error name,
/// garbage, oversize frames, user names with control characters), silence, or a hang-up.
/// It records the frames it received and whether the client shut its end.
///
/// Serves one connection at a time on its own thread; stops when released.
public final class ScriptedVarlinkServer: @unchecked Sendable {
    /// What to do with one received call frame.
    public enum Action {
        /// Send these bytes (a whole reply frame: add the NUL yourself, or use `reply`).
        case send([UInt8])
        /// Close the connection without answering.
        case close
        /// Never answer; keep reading until the client goes away.
        case silence
    }

    public let socketPath: String
    private let directory: TemporaryDirectory
    private let listener: Int32
    private let respond: @Sendable ([UInt8]) -> Action
    private let lock = NSLock()
    private var frames: [[UInt8]] = []
    private var sawEndOfStream = false
    private var stopping = false
    private let finished = DispatchSemaphore(value: 0)

    /// A reply frame for `json`, NUL included.
    public static func reply(_ json: String) -> Action {
        .send(Array(json.utf8) + [0])
    }

    /// Listens on a fresh socket and answers each call with `respond(frame)`.
    public init(respond: @escaping @Sendable ([UInt8]) -> Action) throws {
        directory = try TemporaryDirectory()
        socketPath = directory.path + "/fake.sock"
        self.respond = respond
        do {
            let fd = try UnixSocket.bind(path: socketPath)
            guard listen(fd, 8) == 0 else {
                let error = SystemError.last("listen")
                Glibc.close(fd)
                throw error
            }
            listener = fd
        } catch {
            throw TestKitError("\(error)")
        }
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    deinit {
        Glibc.close(listener)
    }

    /// Stops serving and waits for the server thread.
    public func stop() {
        lock.withLock { stopping = true }
        finished.wait()
    }

    /// The call frames received so far (NUL excluded).
    public var received: [[UInt8]] {
        lock.withLock { frames }
    }

    /// Whether a client ended its stream (EOF or reset) while the server waited.
    public var clientHungUp: Bool {
        lock.withLock { sawEndOfStream }
    }

    /// Waits up to `timeout` seconds for `condition`.
    public func waitFor(timeout: TimeInterval = 5, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() && Date() < deadline { usleep(5_000) }
        return condition()
    }

    private var isStopping: Bool {
        lock.withLock { stopping }
    }

    /// Accepts connections until stopped.
    private func serve() {
        defer { finished.signal() }
        while !isStopping {
            guard readable(listener) else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            handle(connection)
            Glibc.close(connection)
        }
    }

    /// Reads frames from one connection and acts on each.
    private func handle(_ connection: Int32) {
        var pending: [UInt8] = []
        var silent = false
        while !isStopping {
            guard readable(connection) else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else {
                lock.withLock { sawEndOfStream = true }
                return
            }
            pending += chunk[..<count]
            while !silent, let nul = pending.firstIndex(of: 0) {
                let frame = Array(pending[..<nul])
                pending.removeSubrange(...nul)
                lock.withLock { frames.append(frame) }
                switch respond(frame) {
                case .send(let bytes):
                    guard sendAll(bytes, on: connection) else { return }
                case .close:
                    return
                case .silence:
                    silent = true
                }
            }
        }
    }

    /// Waits up to 50 ms for input (so that `stop` is noticed).
    private func readable(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 50) > 0
    }

    private func sendAll(_ bytes: [UInt8], on connection: Int32) -> Bool {
        (try? bytes.withUnsafeBytes { try UnixStream.write($0, to: connection) }) != nil
    }
}
