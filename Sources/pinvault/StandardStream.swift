import Glibc
import PinVaultSystem
import Synchronization

/// An unbuffered output file descriptor (stdout, stderr, the terminal). Unbuffered so
/// that a secret written through `write(_:)` from secret memory is never copied into a
/// buffer the process does not zero.
struct StandardStream {
    /// The descriptor written to.
    let fd: Int32

    /// Standard output.
    static let output = StandardStream(fd: STDOUT_FILENO)
    /// Standard error.
    static let error = StandardStream(fd: STDERR_FILENO)

    /// The errno of the first write to stdout that failed, 0 while none did.
    private static let outputFailure = Atomic<Int32>(0)

    /// Why a write to stdout failed (EPIPE, ENOSPC…), or nil while none did.
    static var outputError: Int32? {
        let code = outputFailure.load(ordering: .relaxed)
        return code == 0 ? nil : code
    }

    /// Writes every byte, retrying short writes (`Syscall` retries interrupted ones). SIGPIPE is ignored
    /// (`PinVaultCommand.main`), so a closed pipe is EPIPE here rather than death by a
    /// signal: a failure ends the write, and one on stdout is remembered, so that the
    /// command ends with status 1 and says why on stderr (`GlobalOptions.run`).
    func write(_ bytes: UnsafeRawBufferPointer) {
        guard var next = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let written: Int
            do {
                written = try Syscall.run("write") { Glibc.write(fd, next, left) }
            } catch {
                written = -Int(error.errno)
            }
            guard written > 0 else {
                if fd == STDOUT_FILENO {
                    let code = written < 0 ? Int32(-written) : EIO
                    _ = Self.outputFailure.compareExchange(expected: 0, desired: code, ordering: .relaxed)
                }
                return
            }
            next += written
            left -= written
        }
    }

    /// Writes `text` as UTF-8.
    func write(_ text: String) {
        var text = text
        text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }
}
