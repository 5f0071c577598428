import Glibc
import PinVaultSystem
import XCTest

final class SyscallTests: XCTestCase {
    func testRun_returnsTheResultOfASuccessfulCall() throws {
        XCTAssertEqual(try Syscall.run("getpid") { getpid() }, getpid())
    }

    func testRun_throwsTheCallsNameAndErrno() {
        XCTAssertThrowsError(try Syscall.run("close") { close(-1) }) { error in
            XCTAssertEqual(error as? SystemError, SystemError(call: "close", errno: EBADF))
            XCTAssertEqual((error as? SystemError)?.description, "close: Bad file descriptor")
        }
    }

    func testRun_retriesEINTR_andOnlyEINTR() throws {
        var calls = 0
        let result = try Syscall.run("read") { () -> Int in
            calls += 1
            guard calls == 3 else {
                errno = EINTR
                return -1
            }
            return 7
        }
        XCTAssertEqual(result, 7)
        XCTAssertEqual(calls, 3, "two interrupted calls, then the one that finished")

        calls = 0
        XCTAssertThrowsError(try Syscall.run("read") { () -> Int in
            calls += 1
            errno = EAGAIN
            return -1
        }) { XCTAssertEqual(($0 as? SystemError)?.errno, EAGAIN) }
        XCTAssertEqual(calls, 1)
    }

    func testNonBlocking_isNilWhenTheCallWouldBlock_andTheResultOtherwise() throws {
        let pipe = try Pipe()
        XCTAssertEqual(fcntl(pipe.read, F_SETFL, O_NONBLOCK), 0)
        var byte: UInt8 = 0
        XCTAssertNil(try Syscall.nonBlocking("read") { read(pipe.read, &byte, 1) })
        XCTAssertEqual(write(pipe.write, [UInt8(42)], 1), 1)
        XCTAssertEqual(try Syscall.nonBlocking("read") { read(pipe.read, &byte, 1) }, 1)
        XCTAssertEqual(byte, 42)
        XCTAssertThrowsError(try Syscall.nonBlocking("read") { read(-1, &byte, 1) }) {
            XCTAssertEqual(($0 as? SystemError)?.errno, EBADF)
        }
    }

    func testReturningError_retriesEINTR_andThrowsAnyOtherNumber() throws {
        var codes: [Int32] = [EINTR, 0]
        try Syscall.returningError("pthread_mutex_lock") { codes.removeFirst() }
        XCTAssertEqual(codes, [])
        XCTAssertThrowsError(try Syscall.returningError("posix_spawn") { ENOENT }) {
            XCTAssertEqual($0 as? SystemError, SystemError(call: "posix_spawn", errno: ENOENT))
        }
    }

    func testConnect_takesEALREADYAndEISCONNAsProgress_andThrowsARefusal() throws {
        var answers: [Int32] = [EINTR, EALREADY, EISCONN]
        try Syscall.connect {
            errno = answers.removeFirst()
            return -1
        }
        XCTAssertEqual(answers, [])
        XCTAssertThrowsError(try Syscall.connect {
            errno = ECONNREFUSED
            return -1
        }) { XCTAssertEqual($0 as? SystemError, SystemError(call: "connect", errno: ECONNREFUSED)) }
    }

    /// A real signal, with a handler installed without `SA_RESTART`, interrupts a read
    /// blocked on an empty pipe: the bare call returns EINTR, `Syscall.run` carries on
    /// until the byte arrives.
    func testRun_retriesAReadThatARealSignalInterrupts() throws {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        var previous = sigaction()
        XCTAssertEqual(sigaction(SIGUSR1, &action, &previous), 0)
        defer { sigaction(SIGUSR1, &previous, nil) }

        let bare = try BlockedReader { fd, byte in read(fd, byte, 1) < 0 ? errno : 0 }
        XCTAssertEqual(bare.interruptAndFinish(), EINTR, "the signal interrupts a bare read")

        let retried = try BlockedReader { fd, byte in
            (try? Syscall.run("read") { read(fd, byte, 1) }) == 1 ? 0 : -1
        }
        XCTAssertEqual(retried.interruptAndFinish(), 0, "Syscall.run read the byte that came after the signals")
        XCTAssertGreaterThan(retried.signalsSent, 0)
    }
}

/// The two ends of a pipe, closed on release.
final class Pipe {
    let read: Int32
    let write: Int32

    init() throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw SystemError.last("pipe") }
        read = ends[0]
        write = ends[1]
    }

    deinit {
        close(read)
        close(write)
    }
}

/// A thread blocked reading one byte from an empty pipe; `interruptAndFinish` sends it
/// SIGUSR1 while it waits, then writes the byte, and returns what `body` returned.
final class BlockedReader: @unchecked Sendable {
    private let pipe: Pipe
    private let state = ConditionLock()
    private var thread: pthread_t?
    private var outcome: Int32?
    private var worker: WorkerThread?
    private(set) var signalsSent = 0

    init(_ body: @escaping @Sendable (Int32, UnsafeMutablePointer<UInt8>) -> Int32) throws {
        pipe = try Pipe()
        let fd = pipe.read
        worker = try WorkerThread.spawn(name: "blocked-read") { [self] in
            state.withLock {
                thread = pthread_self()
                state.broadcast()
            }
            var byte: UInt8 = 0
            let result = body(fd, &byte)
            state.withLock {
                outcome = result
                state.broadcast()
            }
        }
    }

    func interruptAndFinish() -> Int32? {
        let target: pthread_t = state.withLock {
            while thread == nil { state.wait() }
            return thread!
        }
        // Several signals, 20 ms apart: at least one lands while the read is blocked.
        for _ in 0..<5 {
            usleep(20_000)
            guard state.withLock({ outcome == nil }) else { break }
            pthread_kill(target, SIGUSR1)
            signalsSent += 1
        }
        var byte: UInt8 = 1
        _ = Glibc.write(pipe.write, &byte, 1)
        let result = state.withLock {
            while outcome == nil { state.wait() }
            return outcome
        }
        worker?.join()
        return result
    }
}
