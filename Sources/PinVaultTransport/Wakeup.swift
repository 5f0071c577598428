import CPinVaultSystem
import Glibc
import PinVaultSystem

/// An eventfd through which worker threads wake the event loop.
final class Wakeup: @unchecked Sendable {
    let fd: Int32

    init() throws(SystemError) {
        let fd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard fd >= 0 else { throw SystemError.last("eventfd") }
        self.fd = fd
    }

    deinit { close(fd) }

    func signal() {
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { write(fd, $0.baseAddress, 8) }
    }

    /// Clears pending wake-ups (called by the loop before draining its queue).
    func drain() {
        var value: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &value) { read(fd, $0.baseAddress, 8) }
    }
}
