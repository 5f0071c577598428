import PinVaultCrypto
import Foundation
import Glibc
import PinVaultSSHProtocol
import PinVaultSystem

/// An ssh-agent a test scripts, on a Unix socket any uid may use: it offers the
/// `ssh-ed25519` keys it is given and answers each SIGN_REQUEST with what `sign` makes of
/// the data (a raw 64-byte signature, or nil for SSH_AGENT_FAILURE), recording the data
/// it was asked to sign. Everything else is SSH_AGENT_FAILURE. The tests put it where
/// an attacker's agent would sit: between ssh and a signer of their choosing.
///
/// Serves one connection at a time on its own thread; stops when released.
public final class ScriptedSSHAgent: @unchecked Sendable {
    public let socketPath: String
    private let listener: Int32
    private let identities: [SSHAgentReply.Identity]
    private let sign: @Sendable (_ publicKey: [UInt8], _ data: [UInt8]) -> [UInt8]?
    private let lock = NSLock()
    private var requests: [[UInt8]] = []
    private var stopping = false
    private let finished = DispatchSemaphore(value: 0)

    /// Listens on `socketPath` (mode 0666) and offers `identities`.
    public init(
        socketPath: String, identities: [SSHAgentReply.Identity],
        sign: @escaping @Sendable (_ publicKey: [UInt8], _ data: [UInt8]) -> [UInt8]?
    ) throws {
        self.socketPath = socketPath
        self.identities = identities
        self.sign = sign
        do {
            let fd = try UnixSocket.bind(path: socketPath)
            guard listen(fd, 8) == 0, chmod(socketPath, 0o666) == 0 else {
                let error = SystemError.last("listen")
                Glibc.close(fd)
                throw error
            }
            listener = fd
        } catch {
            throw TestKitError("\(error)")
        }
        Thread { [self] in serve() }.start()
    }

    deinit {
        Glibc.close(listener)
        unlink(socketPath)
    }

    /// Stops serving and waits for the server thread.
    public func stop() {
        lock.withLock { stopping = true }
        finished.wait()
    }

    /// The data of every SIGN_REQUEST so far.
    public var signed: [[UInt8]] {
        lock.withLock { requests }
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
            handle(connection)
            Glibc.close(connection)
        }
    }

    private func handle(_ connection: Int32) {
        var pending: [UInt8] = []
        while !isStopping {
            guard readable(connection) else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            pending += chunk[..<count]
            while pending.count >= 4 {
                let length = Int(pending[0]) << 24 | Int(pending[1]) << 16 | Int(pending[2]) << 8 | Int(pending[3])
                guard length > 0, length <= SSHAgentLimits.maxMessageBytes else { return }
                guard pending.count >= 4 + length else { break }
                let message = Array(pending[4..<(4 + length)])
                pending.removeFirst(4 + length)
                guard (try? answer(message).withUnsafeBytes { try UnixStream.write($0, to: connection) }) != nil else { return }
            }
        }
    }

    private func answer(_ message: [UInt8]) -> [UInt8] {
        switch try? message.withUnsafeBytes({ try SSHAgentRequest.parse($0) }) {
        case .requestIdentities:
            return SSHAgentReply.identities(identities)
        case .sign(let keyBlob, let data, _):
            lock.withLock { requests.append(data) }
            guard let key = SSHKey(blob: keyBlob), let signature = sign(key.publicKey, data),
                  let reply = SSHAgentReply.signature(signature, algorithm: key.algorithm)
            else { return SSHAgentReply.failure() }
            return reply
        default:
            return SSHAgentReply.failure()
        }
    }

    /// Waits up to 50 ms for input (so that `stop` is noticed).
    private func readable(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 50) > 0
    }
}
