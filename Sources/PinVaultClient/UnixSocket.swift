import FoundationEssentials
import Glibc
import PinVaultSystem

/// The client's end of a Unix stream socket: connect, then non-blocking sends and
/// receives bounded by `poll` deadlines.
///
/// Only the connection's serial queue reads, writes and closes the descriptor;
/// `shutdown()` may come from any thread (Task cancellation, `close()`), which is why
/// the descriptor itself sits behind a lock: it is never shut down after it was closed
/// and its number possibly reused.
final class UnixSocket: @unchecked Sendable {
    /// What a send or receive ran into.
    enum Failure: Error {
        /// The peer closed the stream, or it was reset or shut down.
        case closed
        /// The deadline passed first.
        case timedOut
    }

    /// Guards `descriptor`.
    private let lock = ConditionLock()
    /// The socket, or -1 once closed.
    private var descriptor: Int32

    /// Connects to the socket at `path` (blocking; a local connect does not wait on the
    /// daemon's work), served by a uid the client trusts (`TrustedServer`), or closes
    /// it again before anything was sent. The descriptor is close-on-exec.
    init(path: String) throws(PinVaultError) {
        let fd: Int32
        do {
            fd = try PinVaultSystem.UnixSocket.connect(path: path)
        } catch {
            throw .daemonUnavailable(socketPath: path, errno: error.errno)
        }
        do {
            try TrustedServer.check(fd, path: path)
        } catch {
            Glibc.close(fd)
            throw error
        }
        descriptor = fd
    }

    deinit {
        if descriptor >= 0 { Glibc.close(descriptor) }
    }

    /// Whether `close()` ran.
    var isClosed: Bool {
        lock.withLock { descriptor < 0 }
    }

    /// Ends both directions at once, from any thread: a blocked `poll` wakes up and
    /// the next receive sees EOF. The descriptor stays open until `close()`.
    func shutdown() {
        lock.withLock {
            if descriptor >= 0 { _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }

    /// Closes the descriptor; idempotent. Called on the connection's queue only.
    func close() {
        lock.withLock {
            if descriptor >= 0 { Glibc.close(descriptor) }
            descriptor = -1
        }
    }

    /// Sends all of `bytes` before `deadline`, without SIGPIPE.
    func send(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant) throws(Failure) {
        let fd = try open()
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let sent: Int?
            do {
                sent = try Syscall.nonBlocking("send") {
                    Glibc.send(fd, base + offset, bytes.count - offset, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
                }
            } catch {
                throw .closed
            }
            guard let sent else {
                try wait(fd, for: Int16(POLLOUT), until: deadline)
                continue
            }
            guard sent > 0 else { throw .closed }
            offset += sent
        }
    }

    /// Receives what is there (waiting until `deadline` for something) into `buffer`;
    /// returns the byte count, never 0: EOF is `.closed`.
    func receive(into buffer: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant) throws(Failure) -> Int {
        let fd = try open()
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let received: Int?
            do {
                received = try Syscall.nonBlocking("recv") { recv(fd, base, buffer.count, Int32(MSG_DONTWAIT)) }
            } catch {
                throw .closed
            }
            guard let received else {
                try wait(fd, for: Int16(POLLIN), until: deadline)
                continue
            }
            guard received > 0 else { throw .closed }
            return received
        }
    }

    /// The open descriptor, for the queue's I/O.
    private func open() throws(Failure) -> Int32 {
        let fd = lock.withLock { descriptor }
        guard fd >= 0 else { throw .closed }
        return fd
    }

    /// Waits until `fd` is ready for `events` (or hung up), or throws at `deadline`.
    private func wait(_ fd: Int32, for events: Int16, until deadline: ContinuousClock.Instant) throws(Failure) {
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { throw .timedOut }
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let ready: Int32
            do {
                ready = try Syscall.run("poll") { poll(&entry, 1, Self.milliseconds(remaining)) }
            } catch {
                throw .closed
            }
            if ready > 0 { return }
            // Nothing yet: the deadline is checked at the top.
        }
    }

    /// `duration` in whole milliseconds for `poll`, rounded up, at most `Int32.max`.
    private static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        guard seconds < Int64(Int32.max / 1000) else { return Int32.max }
        let fraction = (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(seconds * 1000 + fraction)
    }
}
