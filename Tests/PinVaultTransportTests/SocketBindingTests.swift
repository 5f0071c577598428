import Foundation
import Glibc
import PinVaultSystem
import XCTest

@testable import PinVaultTransport

/// Binding the socket (SECURITY.md, "The socket"): the mode is set without a path
/// lookup after bind, so a symlink swapped into the socket's directory cannot turn the
/// daemon's chmod onto another file; and two daemons starting at once never both
/// believe they serve the path (one unlinking the other's socket).
final class SocketBindingTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        var template = Array("/tmp/pinvault-bind-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        directory = String(cString: made)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func mode(of path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
    }

    func testASymlinkSwappedInWhileBinding_neverHasItsTargetChmodded() throws {
        let victim = directory + "/victim"
        XCTAssertTrue(FileManager.default.createFile(atPath: victim, contents: Data("secret".utf8)))
        chmod(victim, 0o600)
        let socketPath = directory + "/io.pinvault.Vault"
        let swapper = SymlinkSwapper(path: socketPath, target: victim, scratch: directory + "/swap")
        swapper.start()
        defer { swapper.stop() }
        var bound = 0
        let rounds = 3000
        for _ in 0..<rounds {
            if let listener = try? UnixListener.bind(path: socketPath, mode: 0o666) {
                bound += 1
                listener.close()
            }
            unlink(socketPath)
            if mode(of: victim) != 0o600 { break }
        }
        print("socket binding: \(bound) of \(rounds) binds succeeded while a symlink was swapped in \(swapper.swaps) times")
        XCTAssertEqual(mode(of: victim), 0o600, "the daemon's chmod followed a symlink onto another file")
    }

    func testTwoBindsAtOnce_neverBothSucceed() throws {
        let socketPath = directory + "/io.pinvault.Vault"
        var bothSucceeded = 0
        let rounds = 1000
        for _ in 0..<rounds {
            let results = ConcurrentBinds(path: socketPath).run()
            if results.count == 2 { bothSucceeded += 1 }
            results.forEach { $0.close() }
            unlink(socketPath)
        }
        XCTAssertEqual(bothSucceeded, 0, "in \(bothSucceeded) of \(rounds) rounds both binds succeeded: one serves an unlinked socket")
    }

    func testAStaleSocketWhoseLockIsHeld_isLeftToTheLockHolder() throws {
        // Another daemon is starting: it holds the lock and has bound, not yet listened.
        let socketPath = directory + "/io.pinvault.Vault"
        let other = try XCTUnwrap(try FileLock.tryExclusive(path: socketPath + ".lock"))
        let bound = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { Glibc.close(bound) }
        XCTAssertEqual(UnixSocketAddress(path: socketPath)!.withSockaddr { Glibc.bind(bound, $0, $1) }, 0)
        var before = stat()
        XCTAssertEqual(lstat(socketPath, &before), 0)

        XCTAssertThrowsError(try UnixListener.bind(path: socketPath, mode: 0o666), "bound over another daemon's socket")
        var after = stat()
        XCTAssertEqual(lstat(socketPath, &after), 0, "the other daemon's socket was unlinked")
        XCTAssertEqual(after.st_ino, before.st_ino, "the other daemon's socket was replaced")
        other.release()
    }

    func testALiveSocket_isNeverReplaced_andAStaleOneIs() throws {
        let socketPath = directory + "/io.pinvault.Vault"
        let first = try UnixListener.bind(path: socketPath, mode: 0o666)
        XCTAssertThrowsError(try UnixListener.bind(path: socketPath, mode: 0o666), "a second bind over a live socket")
        XCTAssertEqual(mode(of: socketPath), 0o666, "the socket has the configured mode, whatever the umask")
        XCTAssertNotNil(UnixSocketAddress(path: socketPath))
        // A stale socket file: bound by a process that is gone (here: a plain socket closed without unlinking).
        first.close()
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        _ = UnixSocketAddress(path: socketPath)!.withSockaddr { Glibc.bind(stale, $0, $1) }
        Glibc.close(stale)
        let second = try UnixListener.bind(path: socketPath, mode: 0o660)
        XCTAssertEqual(mode(of: socketPath), 0o660)
        second.close()
    }
}

/// Swaps a symlink to `target` into `path` as fast as it can (symlink, then rename over).
private final class SymlinkSwapper: @unchecked Sendable {
    let path: String
    let target: String
    let scratch: String
    private var thread: Thread?
    private let stopping = NSLock()
    private var shouldStop = false
    private(set) var swaps = 0

    init(path: String, target: String, scratch: String) {
        self.path = path
        self.target = target
        self.scratch = scratch
    }

    func start() {
        let thread = Thread { [self] in
            while true {
                stopping.lock()
                let stop = shouldStop
                stopping.unlock()
                if stop { return }
                unlink(scratch)
                if symlink(target, scratch) == 0, rename(scratch, path) == 0 { swaps += 1 }
                // Give the binder a chance to find the path free.
                if swaps % 2 == 0 { unlink(path) }
            }
        }
        self.thread = thread
        thread.start()
    }

    func stop() {
        stopping.lock()
        shouldStop = true
        stopping.unlock()
        while thread?.isFinished == false { usleep(1000) }
    }
}

/// Two threads binding the same path at the same instant.
private final class ConcurrentBinds: @unchecked Sendable {
    let path: String
    private let lock = NSLock()
    private var listeners: [UnixListener] = []

    init(path: String) { self.path = path }

    func run() -> [UnixListener] {
        let group = DispatchGroup()
        let start = DispatchSemaphore(value: 0)
        for _ in 0..<2 {
            DispatchQueue.global().async(group: group) { [self] in
                start.wait()
                if let listener = try? UnixListener.bind(path: path, mode: 0o666) {
                    lock.lock()
                    listeners.append(listener)
                    lock.unlock()
                }
            }
        }
        start.signal()
        start.signal()
        group.wait()
        return listeners
    }
}
