import Glibc
import PinVaultSystem

/// The controlling terminal (`/dev/tty`), where PINs, tokens and confirmations are
/// typed even when stdin and stdout are redirected; or a descriptor given for secrets
/// (`--pin-stdin`, `--pin-fd N`) that turns out to be a terminal. Secrets are read with
/// echo off; the terminal's settings are put back on every way out, a signal included,
/// and echo goes off again after a stop (`EchoGuard`).
final class Terminal {
    /// The open terminal.
    private let fd: Int32
    /// Whether `fd` is ours to close (`/dev/tty`), not a descriptor we were given.
    private let owned: Bool

    /// The controlling terminal, or nil when the process has none (a service, a pipe
    /// under `setsid`, CI).
    static func open() -> Terminal? {
        let fd = Glibc.open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        return Terminal(fd: fd, owned: true)
    }

    /// `fd` when it is a terminal (a person typing into `--pin-stdin`), else nil. The
    /// descriptor is not closed.
    static func borrowing(_ fd: Int32) -> Terminal? {
        guard isatty(fd) == 1 else { return nil }
        return Terminal(fd: fd, owned: false)
    }

    private init(fd: Int32, owned: Bool) {
        self.fd = fd
        self.owned = owned
    }

    deinit {
        if owned { Glibc.close(fd) }
    }

    /// Shows `prompt`.
    func write(_ prompt: String) {
        StandardStream(fd: fd).write(prompt)
    }

    /// Shows `prompt` and reads one line into `buffer` with echo off (the newline is
    /// still echoed, so the cursor moves on); returns its length without the newline.
    /// Without a prompt (a descriptor that is a terminal) nothing is shown, and lines
    /// typed ahead are kept for the next secret instead of being flushed.
    func readSecret(prompt: String?, into buffer: UnsafeMutableRawBufferPointer) throws(SecretLine.Failure) -> Int {
        let flushing = prompt != nil
        var original = termios()
        try Self.retrying { tcgetattr(fd, &original) }
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ECHONL)
        EchoGuard.arm(fd: fd, original: original, silent: silent, prompt: prompt, flushing: flushing)
        defer { EchoGuard.disarm(flushing: flushing) }
        try Self.retrying { tcsetattr(fd, flushing ? TCSAFLUSH : TCSANOW, &silent) }
        // Only now, with echo off, may the person start typing.
        if let prompt { write(prompt) }
        do {
            return try SecretLine.read(from: fd, into: buffer)
        } catch {
            // Drop the rest of an over-long line, so it is not run as a shell command.
            tcflush(fd, TCIFLUSH)
            throw error
        }
    }

    /// Runs a terminal call, again while a signal interrupts it (a stop from the
    /// background, then `fg`: `Syscall`); any other failure is `.readFailed`.
    private static func retrying(_ call: () -> Int32) throws(SecretLine.Failure) {
        do {
            try Syscall.run("tcsetattr", call)
        } catch {
            throw .readFailed(error.errno)
        }
    }

    /// Shows `prompt` and reads one line with echo on (a confirmation, never a secret).
    func readLine(prompt: String) -> String? {
        write(prompt)
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = (try? Syscall.run("read") { Glibc.read(fd, &byte, 1) }) ?? -1
            guard count == 1 else { return line.isEmpty ? nil : String(decoding: line, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            guard line.count < 1024 else { continue }
            line.append(byte)
        }
    }
}
