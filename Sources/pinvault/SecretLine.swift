import Glibc
import PinVaultSystem

/// Reads one line of a secret (a PIN, a token) from a file descriptor straight into
/// secret memory, one byte per `read` so that nothing past the line is consumed (the
/// next PIN or the challenge may follow on the same input). The newline (`\n` or
/// `\r\n`) is zeroed inside the buffer and not counted.
enum SecretLine {
    /// Why no line could be read. Never holds the secret.
    enum Failure: Error {
        /// The input ended before anything was read.
        case endOfInput
        /// The line does not fit the buffer.
        case tooLong(limit: Int)
        /// `read` failed with this errno.
        case readFailed(Int32)
    }

    /// Fills `buffer` with one line from `fd`; returns its length without the newline.
    /// A last line without a newline counts; an input that is already at its end does not.
    static func read(from fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(Failure) -> Int {
        var count = 0
        while true {
            guard let base = buffer.baseAddress, count < buffer.count else {
                throw .tooLong(limit: max(buffer.count - 1, 0))
            }
            let result: Int
            do {
                result = try Syscall.run("read") { Glibc.read(fd, base + count, 1) }
            } catch {
                throw .readFailed(error.errno)
            }
            if result == 0 {
                guard count > 0 else { throw .endOfInput }
                return count
            }
            if buffer[count] == UInt8(ascii: "\n") {
                buffer[count] = 0
                if count > 0 && buffer[count - 1] == UInt8(ascii: "\r") {
                    count -= 1
                    buffer[count] = 0
                }
                return count
            }
            count += 1
        }
    }
}
