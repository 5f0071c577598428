import Glibc

/// The controlling terminal (`/dev/tty`), where PINs, tokens and confirmations are
/// typed even when stdin and stdout are redirected. Secrets are read with echo off;
/// the terminal's settings are put back on every way out, a signal included.
final class Terminal {
    /// The open `/dev/tty`.
    private let fd: Int32

    /// The controlling terminal, or nil when the process has none (a service, a pipe
    /// under `setsid`, CI).
    static func open() -> Terminal? {
        let fd = Glibc.open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        return Terminal(fd: fd)
    }

    private init(fd: Int32) {
        self.fd = fd
    }

    deinit {
        Glibc.close(fd)
    }

    /// Shows `prompt`.
    func write(_ prompt: String) {
        StandardStream(fd: fd).write(prompt)
    }

    /// Shows `prompt` and reads one line into `buffer` with echo off (the newline is
    /// still echoed, so the cursor moves on); returns its length without the newline.
    func readSecret(prompt: String, into buffer: UnsafeMutableRawBufferPointer) throws(SecretLine.Failure) -> Int {
        var original = termios()
        guard tcgetattr(fd, &original) == 0 else { throw .readFailed(errno) }
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ECHONL)
        EchoGuard.arm(fd: fd, original: original)
        defer { EchoGuard.disarm() }
        guard tcsetattr(fd, TCSAFLUSH, &silent) == 0 else { throw .readFailed(errno) }
        // Only now, with echo off, may the person start typing.
        write(prompt)
        do {
            return try SecretLine.read(from: fd, into: buffer)
        } catch {
            // Drop the rest of an over-long line, so it is not run as a shell command.
            tcflush(fd, TCIFLUSH)
            throw error
        }
    }

    /// Shows `prompt` and reads one line with echo on (a confirmation, never a secret).
    func readLine(prompt: String) -> String? {
        write(prompt)
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = Glibc.read(fd, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { return line.isEmpty ? nil : String(decoding: line, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            guard line.count < 1024 else { continue }
            line.append(byte)
        }
    }
}
