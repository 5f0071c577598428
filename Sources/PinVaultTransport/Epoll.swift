import CPinVaultSystem
import Glibc
import PinVaultSystem

/// A level-triggered epoll set whose events carry a 64-bit token.
final class Epoll: Sendable {
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

    /// Waits up to `timeoutMilliseconds`; returns how many entries of `buffer` it
    /// filled (each a ready fd's token in `data.u64` and its `events`).
    func wait(into buffer: UnsafeMutableBufferPointer<epoll_event>, timeoutMilliseconds: Int32) throws(SystemError) -> Int {
        Int(try Syscall.run("epoll_wait") {
            epoll_wait(fd, buffer.baseAddress, Int32(buffer.count), timeoutMilliseconds)
        })
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
