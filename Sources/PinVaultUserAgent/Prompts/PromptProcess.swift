import Glibc
import PinVaultCrypto
import PinVaultSystem

/// A prompt program (pinentry, an `SSH_ASKPASS`) running beside the agent: its stdin and
/// stdout are pipes, its stderr is the agent's (the journal). Everything it writes is
/// read into locked secret memory — it may be a PIN — and zeroed when this is released.
///
/// It never outlives its use: the agent gives up on it (kills it and reaps it) when it
/// has not answered by `deadline` (monotonic nanoseconds), or as soon as `isCancelled`
/// turns true (ssh hung up while the user was being asked).
final class PromptProcess {
    /// Why a read did not get its answer.
    enum Failure: Error, Equatable {
        /// Its time is up.
        case timedOut
        /// The request was abandoned.
        case cancelled
        /// The program ended, or closed its output, before it answered.
        case ended
        /// It wrote more than a prompt ever should.
        case overlong
        case system(String)

        /// Why, in words for the log.
        var description: String {
            switch self {
            case .timedOut: "nobody answered in time"
            case .cancelled: "ssh left the request"
            case .ended: "it ended before it answered"
            case .overlong: "it wrote more than any answer"
            case .system(let why): why
            }
        }
    }

    /// The most a prompt program's output may hold (a pinentry conversation with a PIN
    /// of 1 KiB is well under it).
    static let maxOutputBytes = 16 * 1024

    let pid: pid_t
    private var input: Int32
    private var output: Int32
    /// What the program wrote and the agent has not consumed yet.
    let received: SecretBytes
    private var reaped = false
    let deadline: UInt64
    let isCancelled: @Sendable () -> Bool

    /// Starts `path` with `arguments` (argv[1...]) and exactly `environment`.
    init(
        path: String, arguments: [String], environment: [String: String], deadline: UInt64,
        isCancelled: @escaping @Sendable () -> Bool
    ) throws(Failure) {
        // A request whose ssh already left asks nobody.
        guard !isCancelled() else { throw .cancelled }
        var toChild: [Int32] = [-1, -1], fromChild: [Int32] = [-1, -1]
        guard Self.pipeClosingOnExec(&toChild) else { throw .system("pipe: errno \(errno)") }
        guard Self.pipeClosingOnExec(&fromChild) else {
            close(toChild[0]); close(toChild[1])
            throw .system("pipe: errno \(errno)")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        // The agent blocks SIGTERM and SIGINT (its loop reads them from a signalfd) and
        // ignores SIGPIPE: the program starts with every signal as it should be.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var everySignal = sigset_t(), noSignal = sigset_t()
        sigfillset(&everySignal)
        sigemptyset(&noSignal)
        posix_spawnattr_setsigdefault(&attributes, &everySignal)
        posix_spawnattr_setsigmask(&attributes, &noSignal)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv = [path] + arguments
        let envp = environment.map { "\($0.key)=\($0.value)" }
        var spawned: pid_t = 0
        let result = withCStrings(argv) { argvPointers in
            withCStrings(envp) { envPointers in
                posix_spawn(&spawned, path, &actions, &attributes, argvPointers, envPointers)
            }
        }
        close(toChild[0])
        close(fromChild[1])
        guard result == 0 else {
            close(toChild[1]); close(fromChild[0])
            throw .system("cannot start \(path): \(String(cString: strerror(result)))")
        }
        do {
            received = try SecretBytes(capacity: Self.maxOutputBytes)
        } catch {
            kill(spawned, SIGKILL)
            _ = Self.reap(spawned)
            close(toChild[1]); close(fromChild[0])
            throw .system("out of secret memory")
        }
        pid = spawned
        input = toChild[1]
        output = fromChild[0]
        self.deadline = deadline
        self.isCancelled = isCancelled
    }

    deinit {
        finish()
        received.wipe()
    }

    /// Writes `bytes` to the program's stdin.
    func write(_ bytes: [UInt8]) throws(Failure) {
        guard input >= 0 else { throw .ended }
        let fd = input
        let written: Bool = bytes.withUnsafeBytes { raw in
            (try? FileDescriptor.writeFully(fd, raw)) != nil
        }
        guard written else { throw .ended }
    }

    /// Closes the program's stdin (an askpass reads nothing; pinentry ends on BYE).
    func closeInput() {
        if input >= 0 { close(input); input = -1 }
    }

    /// Reads until `complete(received)` holds, the program ends, the deadline passes or
    /// the request is abandoned, polling at most 100 ms at a time.
    func read(until complete: (UnsafeRawBufferPointer) -> Bool) throws(Failure) {
        while true {
            if received.withUnsafeBytes(complete) { return }
            if isCancelled() { throw .cancelled }
            let now = MonotonicClock.nanoseconds()
            guard now < deadline else { throw .timedOut }
            var entry = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let wait = Int32(min((deadline - now) / 1_000_000, 100))
            let ready = poll(&entry, 1, max(wait, 1))
            if ready < 0 && errno != EINTR { throw .system("poll: errno \(errno)") }
            guard ready > 0 else { continue }
            guard received.count < Self.maxOutputBytes else { throw .overlong }
            var got = 0
            received.appendIntoFreeSpace { free in
                got = Glibc.read(output, free.baseAddress, free.count)
                return max(got, 0)
            }
            if got == 0 { throw .ended }
            if got < 0 && errno != EINTR && errno != EAGAIN { throw .ended }
        }
    }

    /// Removes the first `count` bytes of what was received (zeroing them).
    func consume(_ count: Int) {
        received.removeFirst(count)
    }

    /// Waits for the program to exit on its own (within the deadline); its exit status,
    /// or nil when it was killed for its time.
    func exitStatus() -> Int32? {
        closeInput()
        while MonotonicClock.nanoseconds() < deadline && !isCancelled() {
            var status: Int32 = 0
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid {
                reaped = true
                return (status & 0x7f) == 0 ? (status >> 8) & 0xff : nil
            }
            if done < 0 && errno != EINTR { reaped = true; return nil }
            usleep(10_000)
        }
        finish()
        return nil
    }

    /// Lets the program leave on its own (a pinentry told BYE does at once) without
    /// waiting for it here: a thread of its own reaps it when it exits, or ends it at its
    /// deadline or once its request is abandoned — its own, so that one program that
    /// lingers keeps no later one from being reaped. When no thread can start, it is
    /// ended now rather than waited for on the caller's (the event loop's) thread.
    func letExit() {
        closeInput()
        let leaving = Leaving(process: self)
        do {
            try WorkerThread.spawn(name: "pv-agent-reaper") { _ = leaving.process.exitStatus() }.detach()
        } catch {
            finish()
        }
    }

    /// A process handed to its reaper, used there alone.
    private struct Leaving: @unchecked Sendable {
        let process: PromptProcess
    }

    /// Ends the program if it still runs (SIGTERM, then SIGKILL) and reaps it.
    func finish() {
        closeInput()
        if output >= 0 { close(output); output = -1 }
        guard !reaped else { return }
        reaped = true
        kill(pid, SIGTERM)
        for _ in 0..<50 {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) != 0 { return }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        _ = Self.reap(pid)
    }

    /// A pipe whose ends close on exec (the child gets them through dup2 alone), made
    /// so at once (`pipe2`): the agent's two prompt threads (questions, notices) spawn
    /// beside each other, and no spawn may inherit the other's pipe.
    private static func pipeClosingOnExec(_ ends: inout [Int32]) -> Bool {
        guard let pipe = try? FileDescriptor.pipeClosingOnExec() else { return false }
        ends = [pipe.read, pipe.write]
        return true
    }

    private static func reap(_ pid: pid_t) -> Bool {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return false }
        }
        return true
    }
}

/// Calls `body` with `strings` as a NULL-terminated array of C strings.
private func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    pointers.append(nil)
    defer { for pointer in pointers { free(pointer) } }
    return body(pointers)
}
