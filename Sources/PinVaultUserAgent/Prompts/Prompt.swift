import PinVaultClient

/// How the per-user agent asks its user something: pinentry (the Assuan protocol of
/// GnuPG's pinentry programs) when there is one, else the `SSH_ASKPASS` program ssh
/// itself uses. A prompt that is cancelled, that nobody answers by its deadline, or
/// whose request ssh abandoned, answers nothing — and then no PIN reaches the daemon:
/// it costs no attempt.
protocol Prompt: Sendable {
    /// Asks for a PIN: the text that says which key and what for, and, after a wrong
    /// one, the error that says so. nil: cancelled, timed out or abandoned.
    func askPIN(description: String, error: String?, isCancelled: @escaping @Sendable () -> Bool) -> PIN?

    /// Asks yes or no; anything but a yes is a no.
    func confirm(description: String, isCancelled: @escaping @Sendable () -> Bool) -> Bool

    /// Tells the user something that ends the request (a throttled or blocked key).
    func tell(_ message: String, isCancelled: @escaping @Sendable () -> Bool)
}

/// Which prompt the agent uses, and how long it waits for an answer.
struct PromptSettings: Sendable, Equatable {
    enum Program: Sendable, Equatable {
        case pinentry(path: String)
        case askpass(path: String)
        /// Nothing can ask: locked keys cannot be unlocked through the agent.
        case none
    }

    var program: Program
    /// How long one prompt may wait for its user (`agent.prompt_timeout_seconds`).
    var timeoutSeconds: Int
    /// The terminal pinentry asks on when there is no display (`--tty`, pinentry's
    /// `ttyname`), and its type.
    var tty: String?
    var term: String?
    /// The environment the prompt program gets: the display's (DISPLAY, WAYLAND_DISPLAY,
    /// XAUTHORITY, DBUS_SESSION_BUS_ADDRESS, XDG_RUNTIME_DIR), PATH, HOME, LANG, and
    /// nothing else of the agent's.
    var environment: [String: String]

    func makePrompt() -> (any Prompt)? {
        switch program {
        case .pinentry(let path): Pinentry(path: path, settings: self)
        case .askpass(let path): Askpass(path: path, settings: self)
        case .none: nil
        }
    }

    /// The environment variables a prompt program is given, when the agent has them.
    static let passedVariables = [
        "PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY",
        "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "XDG_SESSION_TYPE", "TERM",
    ]
}
