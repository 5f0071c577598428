import Glibc

/// Keeps the terminal right around a secret being typed with echo off, whatever signal
/// comes, as readpassphrase(3) does:
///
/// - INT, TERM, HUP, QUIT: echo is put back, then the process dies of the signal
///   (Ctrl-C at a PIN prompt must not leave the shell without echo).
/// - TSTP, TTIN, TTOU (Ctrl-Z, or a read or a mode change from the background): echo
///   is put back, then the process stops with the signal's default action. The shell
///   keeps its own settings while the job is stopped.
/// - CONT (`fg`): echo goes off again and the prompt is shown again, since a shell
///   that resumes the job puts back its own settings, echo included. Should the stop be
///   ignored (an orphaned process group), echo goes off again at once.
///
/// A signal handler may touch only plain memory and async-signal-safe calls, so what it
/// needs (the descriptor, both settings, the prompt's bytes) is written before the
/// handlers go in, and freed only after the previous handlers are back.
enum EchoGuard {
    /// The signals that end the process while it reads.
    private static let endingSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
    /// The signals that stop it.
    private static let stoppingSignals: [Int32] = [SIGTSTP, SIGTTIN, SIGTTOU]

    /// What the handlers need about the terminal being read.
    private struct Saved {
        /// The terminal.
        var fd: Int32
        /// The settings to put back (echo on).
        var original: termios
        /// The settings while the secret is typed (echo off).
        var silent: termios
        /// The prompt's bytes, shown again after a stop; nil when there is none.
        var prompt: UnsafeMutableRawBufferPointer?
        /// How echo is turned off again: TCSAFLUSH drops what was typed while echo was
        /// on; TCSANOW keeps lines typed ahead on a descriptor read without prompts.
        var silenceAction: Int32
    }

    /// Read by the handlers.
    nonisolated(unsafe) private static var saved: Saved?
    /// The handler of the stopping signals, put back after each stop.
    nonisolated(unsafe) private static var stopAction = sigaction()
    /// The handlers in place before `arm`, restored by `disarm`.
    nonisolated(unsafe) private static var previous: [Int32: sigaction] = [:]

    /// Saves what the handlers need and installs them. `flushing` when each secret is
    /// asked for with a prompt, so that nothing typed before it counts.
    static func arm(fd: Int32, original: termios, silent: termios, prompt: String?, flushing: Bool) {
        var promptBytes: UnsafeMutableRawBufferPointer?
        if let prompt, !prompt.isEmpty {
            let bytes = Array(prompt.utf8)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
            buffer.copyBytes(from: bytes)
            promptBytes = buffer
        }
        saved = Saved(fd: fd, original: original, silent: silent, prompt: promptBytes, silenceAction: flushing ? TCSAFLUSH : TCSANOW)

        var ending = sigaction()
        ending.__sigaction_handler.sa_handler = { signal in
            EchoGuard.restoreEcho()
            // Die of the signal as if never caught, so the shell sees the real status.
            Glibc.signal(signal, SIG_DFL)
            raise(signal)
        }
        sigemptyset(&ending.sa_mask)
        install(ending, for: endingSignals)

        stopAction = sigaction()
        stopAction.__sigaction_handler.sa_handler = { signal in
            EchoGuard.restoreEcho()
            // Stop now, inside the handler: unblock the signal and raise it at its
            // default action. `raise` returns once the process is continued.
            Glibc.signal(signal, SIG_DFL)
            var unblock = sigset_t()
            sigemptyset(&unblock)
            sigaddset(&unblock, signal)
            pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
            raise(signal)
            var action = EchoGuard.stopAction
            sigaction(signal, &action, nil)
            // The CONT handler has silenced the terminal already; when the stop was
            // ignored (no CONT came), this does.
            EchoGuard.silenceEcho(showingPrompt: false)
        }
        sigemptyset(&stopAction.sa_mask)
        install(stopAction, for: stoppingSignals)

        var continuing = sigaction()
        continuing.__sigaction_handler.sa_handler = { _ in
            EchoGuard.silenceEcho(showingPrompt: true)
        }
        sigemptyset(&continuing.sa_mask)
        install(continuing, for: [SIGCONT])
    }

    /// Puts the terminal's settings and the previous handlers back. `flushing` drops
    /// what was typed past the secret's line.
    static func disarm(flushing: Bool) {
        if var restore = saved {
            tcsetattr(restore.fd, flushing ? TCSAFLUSH : TCSANOW, &restore.original)
        }
        for (signal, var old) in previous {
            sigaction(signal, &old, nil)
        }
        previous = [:]
        saved?.prompt?.deallocate()
        saved = nil
    }

    private static func install(_ action: sigaction, for signals: [Int32]) {
        for signal in signals {
            var action = action
            var old = sigaction()
            sigaction(signal, &action, &old)
            if previous[signal] == nil { previous[signal] = old }
        }
    }

    /// Echo back on (in a handler).
    private static func restoreEcho() {
        guard var restore = saved else { return }
        tcsetattr(restore.fd, TCSANOW, &restore.original)
    }

    /// Echo off again, and the prompt shown again when asked (in a handler).
    private static func silenceEcho(showingPrompt: Bool) {
        guard var restore = saved else { return }
        tcsetattr(restore.fd, restore.silenceAction, &restore.silent)
        if showingPrompt, let prompt = restore.prompt, let base = prompt.baseAddress {
            _ = Glibc.write(restore.fd, base, prompt.count)
        }
    }
}
