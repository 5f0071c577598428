import Glibc
import PinVaultConfiguration
import PinVaultSystem

/// What `pinvault agent` runs with: its own socket, pinvaultd's, and `[agent]` of
/// `$XDG_CONFIG_HOME/pinvault/agent.toml` (pinvault(1), AGENT):
///
///     [agent]
///     unlock_ttl_seconds = 900        # a key stays unlocked this long after its PIN
///     prompt_timeout_seconds = 60     # a prompt nobody answers is given up (no attempt)
///     daemon_timeout_seconds = 30     # pinvaultd not answering a call by then fails it
///     pinentry = "/usr/bin/pinentry"  # "" or absent: pinentry if installed, else SSH_ASKPASS
///     confirm = ["laptop"]            # keys (key id, label or user) whose every use you confirm
///     allow_forwarding = []           # keys an agent forwarded with ssh -A may use
public struct AgentConfiguration: Sendable, Equatable {
    /// The socket the agent serves ssh on.
    public var agentSocket: String
    /// pinvaultd's Varlink socket, found as the CLI finds it.
    public var daemonSocket: String
    public var unlockTTLSeconds: Int64 = 900
    public var promptTimeoutSeconds: Int = 60
    /// How long a call to pinvaultd may wait for its answer: then the request fails,
    /// and the connection is dropped and made anew for the next (a daemon that took the
    /// call and stopped answering must not hang ssh).
    public var daemonTimeoutSeconds: Int = 30
    /// A pinentry program; nil: `/usr/bin/pinentry` when installed and it has a display
    /// or a terminal to ask on, else `SSH_ASKPASS` (then `/usr/bin/ssh-askpass`), which
    /// is also asked whenever a pinentry cannot ask.
    public var pinentry: String?
    public var confirm: [String] = []
    public var allowForwarding: [String] = []
    /// The terminal a pinentry asks on when the session has no display (`--tty`).
    public var tty: String?

    public static let sectionKeys = [
        "unlock_ttl_seconds", "prompt_timeout_seconds", "daemon_timeout_seconds", "pinentry", "confirm", "allow_forwarding",
    ]

    public init(agentSocket: String, daemonSocket: String) {
        self.agentSocket = agentSocket
        self.daemonSocket = daemonSocket
    }

    /// `$XDG_RUNTIME_DIR/pinvault/agent.sock`, where the user unit's socket is; nil
    /// without `XDG_RUNTIME_DIR` (no user session).
    public static var defaultAgentSocket: String? {
        ProcessEnvironment.value("XDG_RUNTIME_DIR").map { $0 + "/pinvault/agent.sock" }
    }

    /// `$XDG_CONFIG_HOME/pinvault/agent.toml`, or `~/.config/…`.
    public static var defaultConfigFile: String? {
        if let base = ProcessEnvironment.value("XDG_CONFIG_HOME"), base.hasPrefix("/") { return base + "/pinvault/agent.toml" }
        return ProcessEnvironment.value("HOME").map { $0 + "/.config/pinvault/agent.toml" }
    }

    /// Reads `[agent]` of the file at `path` over these settings; a missing file changes
    /// nothing, anything wrong in one stops the agent with the file, key and reason.
    public mutating func read(file path: String) throws(ConfigurationError) {
        var status = stat()
        guard stat(path, &status) == 0 else { return }
        let text = try ConfigurationFile.text(at: path)
        let document: TOMLDocument
        do {
            document = try TOMLReader.parse(text)
        } catch {
            throw ConfigurationError(file: path, line: error.line, reason: error.message)
        }
        guard document.root.keys.isEmpty else {
            throw ConfigurationError(file: path, line: nil, reason: "keys belong in [agent]")
        }
        for section in document.sections where section.name != "agent" {
            throw ConfigurationError(file: path, line: section.line, reason: "unknown section [\(section.name)]; the file holds [agent]")
        }
        guard let table = document[section: "agent"] else { return }
        let agent = ConfigurationSection(file: path, table: table)
        try agent.refuseUnknownKeys(Self.sectionKeys)
        if let ttl = try agent.integer("unlock_ttl_seconds", in: 1...86_400) { unlockTTLSeconds = ttl }
        if let timeout = try agent.integer("prompt_timeout_seconds", in: 5...3600) { promptTimeoutSeconds = Int(timeout) }
        if let timeout = try agent.integer("daemon_timeout_seconds", in: 1...3600) { daemonTimeoutSeconds = Int(timeout) }
        if let program = try agent.string("pinentry") {
            guard program.isEmpty || program.hasPrefix("/") else {
                throw agent.error("pinentry", "must be an absolute path or \"\", got \"\(program)\"")
            }
            pinentry = program.isEmpty ? nil : program
        }
        if let keys = try agent.strings("confirm") { confirm = keys }
        if let keys = try agent.strings("allow_forwarding") { allowForwarding = keys }
    }

    /// Whether `names` (a key id, label or user listed in the file) name this key.
    static func names(_ names: [String], keyId: String, user: String, label: String?) -> Bool {
        names.contains { $0 == keyId || $0 == user || ($0 == label && label != nil) }
    }

    /// The prompt the agent uses, and the environment it gives it.
    func promptSettings(environment: [String: String]) -> PromptSettings {
        var passed: [String: String] = [:]
        for name in PromptSettings.passedVariables { passed[name] = environment[name] }
        // A pinentry needs somewhere to ask: a display, or a terminal (pinentry-curses,
        // -tty). Without either, SSH_ASKPASS is the better guess.
        let canShow = tty != nil || environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil
        let installed = access("/usr/bin/pinentry", X_OK) == 0
        let askpass = environment["SSH_ASKPASS"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (access("/usr/bin/ssh-askpass", X_OK) == 0 ? "/usr/bin/ssh-askpass" : nil)
        // The first choice, then SSH_ASKPASS for when a pinentry cannot ask (one that
        // finds no terminal, as pinentry-curses without one).
        var programs: [PromptSettings.Program] = []
        if let pinentry {
            programs.append(.pinentry(path: pinentry))
        } else if installed && (canShow || askpass == nil) {
            programs.append(.pinentry(path: "/usr/bin/pinentry"))
        }
        if let askpass { programs.append(.askpass(path: askpass)) }
        return PromptSettings(
            programs: programs, timeoutSeconds: promptTimeoutSeconds, tty: tty, term: environment["TERM"], environment: passed
        )
    }
}
