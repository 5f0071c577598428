import Glibc
import PinVaultClient
import PinVaultCrypto
import PinVaultSystem
import PinVaultTransport

/// The agent's connection to pinvaultd on its own event loop, for the signature ssh
/// waits on most: `AgentSign` with an unlocked key. The call is written from the loop
/// (a non-blocking socket, watched by the same epoll as ssh's connections), calls from
/// several ssh connections follow each other on it without waiting (Varlink answers
/// them in order), and each reply is read and answered on the loop — no thread between
/// ssh's request and pinvaultd's answer.
///
/// Used on the loop's thread only (`SSHAgentDoor.handle`, and the watcher's `ready`).
/// Anything it cannot do at once — connect, or write a whole call — it does not do:
/// the caller takes its other way (`PinVaultClient`, off the loop). A connection that
/// fails answers every call in flight `.connectionLost`, and the next call connects anew.
final class DaemonOnLoop: @unchecked Sendable {
    typealias Completion = (Result<[UInt8], PinVaultError>) -> Void

    private let socketPath: String
    private let descriptors: LoopDescriptors
    private var fd: Int32 = -1
    private var token: UInt64 = 0
    /// The calls written and not answered yet, oldest first.
    private var waiting: [Completion] = []
    private var waitingStart = 0
    /// Bytes read and not yet a whole reply (a reply ends with NUL).
    private var input: [UInt8] = []
    /// The most a reply may take (a signature's is ~200 bytes; an error's more).
    static let maxReplyBytes = 64 * 1024

    init(socketPath: String, descriptors: LoopDescriptors) {
        self.socketPath = socketPath
        self.descriptors = descriptors
    }

    /// Writes `frame` (zeroing it) and answers `completion` on the loop when the reply
    /// comes; false when it could not be written at once (nothing was sent, and
    /// `completion` is never called).
    func call(_ frame: ReplyBuffer, _ completion: @escaping Completion) -> Bool {
        defer { frame.zero() }
        guard connected() else { return false }
        let sent = frame.withUnsafeBytes { bytes in
            Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
        }
        guard sent == frame.count else {
            // A part written leaves the stream in no known state: start again.
            if sent > 0 { fail() } else if sent < 0 && errno != EAGAIN && errno != EINTR { fail() }
            return false
        }
        waiting.append(completion)
        return true
    }

    private func connected() -> Bool {
        if fd >= 0 { return true }
        guard let socket = try? UnixSocket.connect(path: socketPath, nonBlocking: true) else { return false }
        guard let watched = try? descriptors.watch(socket, ready: { [self] in readReplies() }) else {
            close(socket)
            return false
        }
        fd = socket
        token = watched
        return true
    }

    /// The loop saw the socket readable (or closed): every whole reply is answered.
    private func readReplies() {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while fd >= 0 {
            let got = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if got < 0 && (errno == EAGAIN || errno == EINTR) { return }
            guard got > 0 else { return fail() }
            input += chunk[..<got]
            var start = input.startIndex
            while let end = input[start...].firstIndex(of: 0) {
                guard waitingStart < waiting.count else { return fail() }  // a reply nobody asked for
                let completion = waiting[waitingStart]
                waitingStart += 1
                let result = input[start..<end].withUnsafeBytes { AgentSignCall.reply($0) }
                start = end + 1
                completion(result)
            }
            input.removeSubrange(..<start)
            if waitingStart == waiting.count {
                waiting.removeAll(keepingCapacity: true)
                waitingStart = 0
            }
            if input.count > Self.maxReplyBytes { return fail() }
        }
    }

    /// Closes the connection; every call in flight is answered `.connectionLost`.
    private func fail() {
        guard fd >= 0 else { return }
        descriptors.stopWatching(fd, token: token)
        close(fd)
        fd = -1
        input.removeAll()
        let lost = waiting[waitingStart...]
        waiting = []
        waitingStart = 0
        for completion in lost { completion(.failure(.connectionLost)) }
    }
}
