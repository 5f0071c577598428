import CPinVaultSystem
import Glibc
import PinVaultSystem

/// SIGTERM and SIGINT delivered through a signalfd, so shutdown is an ordinary event
/// of the loop rather than code running in a signal handler. `blockInThisThread()` must
/// run on the main thread before any other thread starts, so every thread inherits
/// the mask; SIGPIPE is ignored (peers that vanish mid-write are normal).
public final class ShutdownSignals: Sendable {
    let fd: Int32

    public static func blockInThisThread() {
        var set = Self.signalSet()
        pthread_sigmask(SIG_BLOCK, &set, nil)
        signal(SIGPIPE, SIG_IGN)
    }

    init() throws(SystemError) {
        var set = Self.signalSet()
        let fd = signalfd(-1, &set, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        guard fd >= 0 else { throw SystemError.last("signalfd") }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Reads pending signals; returns the last signal number, or nil.
    func read() -> Int32? {
        var info = signalfd_siginfo()
        var last: Int32?
        while withUnsafeMutableBytes(of: &info, { Glibc.read(fd, $0.baseAddress, $0.count) })
            == MemoryLayout<signalfd_siginfo>.size
        {
            last = Int32(info.ssi_signo)
        }
        return last
    }

    private static func signalSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        return set
    }
}
