import Glibc

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

    /// Writes every byte, retrying short writes and EINTR. A closed pipe or a full disk
    /// is not worth failing the command for after the daemon has acted, so errors end
    /// the write silently (the exit status still says what the daemon did).
    func write(_ bytes: UnsafeRawBufferPointer) {
        guard var next = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let written = Glibc.write(fd, next, left)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
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
