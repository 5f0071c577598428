import CPinVaultSystem
import Glibc
import PinVaultSystem

/// A level-triggered epoll set whose events carry a 64-bit token.
final class Epoll {
    let fd: Int32

    init() throws(SystemError) {
        let fd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard fd >= 0 else { throw SystemError.last("epoll_create1") }
        self.fd = fd
    }

    deinit { close(fd) }

    func add(_ target: Int32, events: UInt32, token: UInt64) throws(SystemError) {
        try control(EPOLL_CTL_ADD, target, events: events, token: token)
    }

    func modify(_ target: Int32, events: UInt32, token: UInt64) throws(SystemError) {
        try control(EPOLL_CTL_MOD, target, events: events, token: token)
    }

    func remove(_ target: Int32) {
        _ = epoll_ctl(fd, EPOLL_CTL_DEL, target, nil)
    }

    /// Waits up to `timeoutMilliseconds` and calls `body(token, events)` per ready fd.
    func wait(
        into buffer: UnsafeMutableBufferPointer<epoll_event>,
        timeoutMilliseconds: Int32,
        _ body: (UInt64, UInt32) -> Void
    ) throws(SystemError) {
        let count = try Syscall.run("epoll_wait") {
            epoll_wait(fd, buffer.baseAddress, Int32(buffer.count), timeoutMilliseconds)
        }
        for index in 0..<Int(count) {
            body(buffer[index].data.u64, buffer[index].events)
        }
    }

    private func control(_ op: Int32, _ target: Int32, events: UInt32, token: UInt64) throws(SystemError) {
        var event = epoll_event()
        event.events = events
        event.data.u64 = token
        guard epoll_ctl(fd, op, target, &event) == 0 else { throw SystemError.last("epoll_ctl") }
    }
}

extension UInt32 {
    static let epollIn = UInt32(EPOLLIN.rawValue)
    static let epollOut = UInt32(EPOLLOUT.rawValue)
    static let epollErr = UInt32(EPOLLERR.rawValue)
    static let epollHup = UInt32(EPOLLHUP.rawValue)
    static let epollRdHup = UInt32(EPOLLRDHUP.rawValue)
}
