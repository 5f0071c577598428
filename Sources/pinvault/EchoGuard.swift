import Glibc

/// Puts the terminal's echo back when a signal ends the process while a secret is
/// being typed (Ctrl-C at a PIN prompt must not leave the shell without echo).
///
/// A signal handler may touch only plain memory and async-signal-safe calls, so the
/// saved settings live in a static that is written before the handlers go in.
enum EchoGuard {
    /// The signals that end the process while it reads.
    private static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    /// The terminal and the settings to put back; read by the handler.
    nonisolated(unsafe) private static var saved: (fd: Int32, settings: termios)?
    /// The handlers in place before `arm`, restored by `disarm`.
    nonisolated(unsafe) private static var previous: [Int32: sigaction] = [:]

    /// Saves `original` for `fd` and installs the handlers.
    static func arm(fd: Int32, original: termios) {
        saved = (fd, original)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in
            if var restore = EchoGuard.saved {
                tcsetattr(restore.fd, TCSAFLUSH, &restore.settings)
            }
            // Die of the signal as if never caught, so the shell sees the real status.
            Glibc.signal(signal, SIG_DFL)
            raise(signal)
        }
        sigemptyset(&action.sa_mask)
        for signal in signals {
            var old = sigaction()
            sigaction(signal, &action, &old)
            previous[signal] = old
        }
    }

    /// Puts the terminal's settings and the previous handlers back.
    static func disarm() {
        if var restore = saved {
            tcsetattr(restore.fd, TCSAFLUSH, &restore.settings)
        }
        for (signal, var old) in previous {
            sigaction(signal, &old, nil)
        }
        previous = [:]
        saved = nil
    }
}
