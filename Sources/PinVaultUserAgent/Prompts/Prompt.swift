import Logging
import PinVaultClient

/// How the per-user agent asks its user something: pinentry (the Assuan protocol of
/// GnuPG's pinentry programs) when there is one, else the `SSH_ASKPASS` program ssh
/// itself uses. A prompt that is cancelled, that nobody answers by its deadline, or
/// whose request ssh abandoned, answers nothing — and then no PIN reaches the daemon:
/// it costs no attempt. A prompt that could not ask at all says why (`.failed`), and
/// the agent tries the next one (`PromptChain`).
protocol Prompt: Sendable {
    /// Which program this is, for the log ("pinentry /usr/bin/pinentry").
    var name: String { get }

    /// Asks for a PIN: the text that says which key and what for, and, after a wrong
    /// one, the error that says so.
    func askPIN(_ text: PromptText, error: String?, isCancelled: @escaping @Sendable () -> Bool) -> PromptAnswer<PIN>

    /// Asks yes or no; anything but a yes is `.declined`.
    func confirm(_ text: PromptText, isCancelled: @escaping @Sendable () -> Bool) -> PromptAnswer<Void>

    /// Tells the user something (a throttled key, wrong PINs tried by someone else).
    func tell(_ message: String, isCancelled: @escaping @Sendable () -> Bool) -> PromptAnswer<Void>
}

/// What a prompt came back with.
enum PromptAnswer<Value> {
    case answered(Value)
    /// The user said no or cancelled, nobody answered in time, or ssh left.
    case declined
    /// The program could not ask (it did not start, had no terminal or display, broke
    /// off): why, in words for the log.
    case failed(String)
}

/// What a question says. `summary` names the key (its comment and fingerprint), as
/// ssh's own askpass prompts do; `details` add what the signature is for and where it
/// goes. An `SSH_ASKPASS` program gets its question in argv, which every uid can read
/// in /proc: it gets the summary alone. pinentry gets both, over its pipe.
struct PromptText: Sendable, Equatable {
    var summary: String
    var details: [String] = []

    var full: String { ([summary] + details).joined(separator: "\n") + "?" }
    var brief: String { summary + "?" }
}

/// Prompts tried in turn: the next is asked only when one could not ask at all, and
/// each failure is logged with its reason. A decline ends the question.
struct PromptChain: Sendable {
    let prompts: [any Prompt]
    let logger: Logger

    var isEmpty: Bool { prompts.isEmpty }

    func askPIN(_ text: PromptText, error: String?, isCancelled: @escaping @Sendable () -> Bool) -> PromptAnswer<PIN> {
        first { $0.askPIN(text, error: error, isCancelled: isCancelled) }
    }

    func confirm(_ text: PromptText, isCancelled: @escaping @Sendable () -> Bool) -> PromptAnswer<Void> {
        first { $0.confirm(text, isCancelled: isCancelled) }
    }

    func tell(_ message: String, isCancelled: @escaping @Sendable () -> Bool) -> PromptAnswer<Void> {
        first { $0.tell(message, isCancelled: isCancelled) }
    }

    private func first<Value>(_ ask: (any Prompt) -> PromptAnswer<Value>) -> PromptAnswer<Value> {
        var reasons: [String] = []
        for (index, prompt) in prompts.enumerated() {
            let answer = ask(prompt)
            guard case .failed(let why) = answer else { return answer }
            let next = index + 1 < prompts.count ? "; trying \(prompts[index + 1].name)" : ""
            logger.warning("\(prompt.name) could not ask: \(why)\(next)")
            reasons.append("\(prompt.name): \(why)")
        }
        return .failed(reasons.isEmpty ? "no pinentry and no SSH_ASKPASS" : reasons.joined(separator: "; "))
    }
}

/// Which prompts the agent uses, and how long it waits for an answer.
struct PromptSettings: Sendable, Equatable {
    enum Program: Sendable, Equatable {
        case pinentry(path: String)
        case askpass(path: String)
    }

    /// In the order tried: the first, and the one asked when it cannot ask. Empty:
    /// nothing can ask, and locked keys cannot be unlocked through the agent.
    var programs: [Program]
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

    func makePrompts(logger: Logger) -> PromptChain {
        PromptChain(prompts: programs.map { program -> any Prompt in
            switch program {
            case .pinentry(let path): Pinentry(path: path, settings: self)
            case .askpass(let path): Askpass(path: path, settings: self)
            }
        }, logger: logger)
    }

    /// The environment variables a prompt program is given, when the agent has them.
    static let passedVariables = [
        "PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY",
        "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "XDG_SESSION_TYPE", "TERM",
    ]
}
