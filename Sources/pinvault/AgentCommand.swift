import ArgumentParser
import FoundationEssentials
import Glibc
import Logging
import PinVaultConfiguration
import PinVaultSystem
import PinVaultUserAgent

/// `pinvault agent [--agent-socket PATH] [--config FILE] [--tty TTY]`
struct AgentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "Run the per-user ssh-agent that asks for the PIN when ssh needs a key.",
        discussion: """
            An ssh-agent for your ssh keys (registered with --purpose ssh), locked ones \
            too: when ssh or git asks it to sign with a locked key, it asks for the PIN \
            through pinentry (or SSH_ASKPASS), unlocks the key in pinvaultd for \
            unlock_ttl_seconds (default 15 minutes), and signs. A cancelled prompt costs no \
            attempt; after a wrong PIN the next prompt says how many are left. It offers the \
            certificates attached to a key (pinvault ssh-cert), refuses to sign for a \
            connection ssh forwarded (ssh -A) unless the key may be (allow_forwarding, and \
            for a session opened elsewhere pinvault unlock --allow-forwarding too), and asks \
            before each use of the keys named in confirm. ssh-add -d and -D lock keys; they \
            stay listed, and their next use asks for the PIN. The user unit starts it on demand:

              systemctl --user enable --now pinvault-agent.socket
              export SSH_AUTH_SOCK=$XDG_RUNTIME_DIR/pinvault/agent.sock

            Run by hand it works as ssh-agent does: it goes on in the background and prints \
            the shell lines that name its socket and pid (-s, -c for csh), for \
            eval "$(pinvault agent)"; with -D it stays in the foreground (under systemd it \
            always does). Its log goes to the standard error it was started with.

            Settings: [agent] in $XDG_CONFIG_HOME/pinvault/agent.toml (~/.config/…): \
            unlock_ttl_seconds, prompt_timeout_seconds, daemon_timeout_seconds, pinentry, confirm, allow_forwarding.
            """
    )

    @OptionGroup var daemon: DaemonSocketOption
    /// `pinvault --json agent`: the root's options, to refuse the one the agent has no use for.
    @ParentCommand var root: PinVaultCommand

    @Option(help: ArgumentHelp("The socket to serve ssh on (default: $XDG_RUNTIME_DIR/pinvault/agent.sock).", valueName: "path"))
    var agentSocket: String?

    @Option(help: ArgumentHelp("The settings file (default: $XDG_CONFIG_HOME/pinvault/agent.toml).", valueName: "file"))
    var config: String?

    @Option(help: ArgumentHelp("The terminal pinentry asks on when there is no display.", valueName: "tty"))
    var tty: String?

    @Flag(name: .customShort("c"), help: "Print C-shell commands (the default when $SHELL ends in csh).")
    var cshell = false

    @Flag(name: .customShort("s"), help: "Print Bourne-shell commands (the default otherwise).")
    var bourneShell = false

    @Flag(name: .customShort("D"), help: "Stay in the foreground (as under systemd, where it always does).")
    var foreground = false

    func validate() throws {
        if root.global.json { throw ValidationError("pinvault agent prints no replies: --json is for the other commands") }
        if cshell && bourneShell { throw ValidationError("-c and -s: choose one shell") }
    }

    func run() throws {
        guard let agentSocket = agentSocket.map(Self.absolute) ?? AgentConfiguration.defaultAgentSocket else {
            StandardStream.error.write("pinvault agent: no XDG_RUNTIME_DIR (no user session): name the agent's socket with --agent-socket\n")
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        let daemonSocket = daemon.socketPath
        var settings = AgentConfiguration(agentSocket: agentSocket, daemonSocket: daemonSocket)
        settings.tty = tty
        let configFile = config ?? AgentConfiguration.defaultConfigFile
        do {
            if let configFile { try settings.read(file: configFile) }
        } catch {
            StandardStream.error.write("pinvault agent: \(error)\n")
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        let environment = ProcessInfo.processInfo.environment
        // Under systemd (the user unit) it serves in the foreground and prints nothing.
        let underSystemd = environment["LISTEN_FDS"] != nil || environment["INVOCATION_ID"] != nil
        let readyDescriptor = environment[Self.readyVariable].flatMap(Int32.init)
        if !foreground && !underSystemd && readyDescriptor == nil {
            return try startInBackground(agentSocket: agentSocket, daemonSocket: daemonSocket, configFile: configFile)
        }
        var logger = Logger(label: "pinvault-agent") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .notice
        var served = environment
        served[Self.readyVariable] = nil
        do {
            try UserAgent.run(settings, environment: served, logger: logger) {
                if let readyDescriptor {
                    // Started by `pinvault agent` without -D: tell it the socket is served.
                    _ = Array("ready\n".utf8).withUnsafeBytes { write(readyDescriptor, $0.baseAddress, $0.count) }
                    close(readyDescriptor)
                } else if !underSystemd {
                    StandardStream.output.write(shellLines(socket: agentSocket, pid: getpid()))
                }
            }
        } catch {
            StandardStream.error.write("pinvault agent: \(error)\n")
            throw ExitCode(ExitStatus.unavailable.rawValue)
        }
    }

    /// The variable that names the descriptor a background agent reports on.
    static let readyVariable = "PINVAULT_AGENT_READY_FD"

    /// As ssh-agent without -D: the agent goes on in a new session of its own (stdin and
    /// stdout /dev/null, stderr — its log — where it was), and this process prints the
    /// shell lines once the socket is served, then exits 0; or, when the agent could
    /// not start, exits with its status, its reason on stderr.
    private func startInBackground(agentSocket: String, daemonSocket: String, configFile: String?) throws {
        var arguments = ["agent", "-D", "--agent-socket", agentSocket, "--socket", daemonSocket]
        if let configFile { arguments += ["--config", configFile] }
        if let tty { arguments += ["--tty", tty] }
        var ends: [Int32] = [-1, -1]
        // Both ends close on exec; the agent gets its end through dup2 alone.
        guard pipe(&ends) == 0, fcntl(ends[0], F_SETFD, FD_CLOEXEC) == 0, fcntl(ends[1], F_SETFD, FD_CLOEXEC) == 0 else {
            StandardStream.error.write("pinvault agent: pipe: \(String(cString: strerror(errno)))\n")
            throw ExitCode(ExitStatus.unavailable.rawValue)
        }
        defer { close(ends[0]) }
        let ready: Int32 = 3
        // The agent outlives this process: it takes none of its descriptors but the three
        // standard ones and its report's (a caller waiting for this process to close
        // what it gave it must not wait for the agent), as ssh-agent closes them.
        Self.closeOnExecAboveStandard()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, ends[1], ready)  // dup2 clears O_CLOEXEC on the copy
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(0x80))  // POSIX_SPAWN_SETSID
        var environment = ProcessInfo.processInfo.environment
        environment[Self.readyVariable] = String(ready)
        let argv = ["/proc/self/exe"] + arguments
        let envp = environment.map { "\($0.key)=\($0.value)" }
        var child: pid_t = 0
        let cArgv = argv.map { strdup($0) } + [nil]
        let cEnvp = envp.map { strdup($0) } + [nil]
        defer { (cArgv + cEnvp).forEach { free($0) } }
        let spawned = posix_spawn(&child, "/proc/self/exe", &actions, &attributes, cArgv, cEnvp)
        close(ends[1])
        guard spawned == 0 else {
            StandardStream.error.write("pinvault agent: cannot start: \(String(cString: strerror(spawned)))\n")
            throw ExitCode(ExitStatus.unavailable.rawValue)
        }
        var answer = [UInt8](repeating: 0, count: 16)
        var got = 0
        repeat {
            got = read(ends[0], &answer, answer.count)
        } while got < 0 && errno == EINTR
        if got > 0 && answer.starts(with: Array("ready".utf8)) {
            StandardStream.output.write(shellLines(socket: agentSocket, pid: child))
            return
        }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        let exited = (status & 0x7f) == 0 ? (status >> 8) & 0xff : ExitStatus.unavailable.rawValue
        throw ExitCode(exited == 0 ? ExitStatus.unavailable.rawValue : exited)
    }

    /// Marks every descriptor above stderr close-on-exec.
    private static func closeOnExecAboveStandard() {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return }
        for entry in entries {
            if let fd = Int32(entry), fd > 2 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        }
    }

    /// What ssh-agent prints, for `eval "$(pinvault agent)"`: the socket and the pid, in
    /// the shell's syntax (csh with -c, or when $SHELL ends in csh).
    private func shellLines(socket: String, pid: pid_t) -> String {
        let csh = cshell || (!bourneShell && (ProcessEnvironment.value("SHELL")?.hasSuffix("csh") ?? false))
        let path = Self.quoted(socket)
        return csh
            ? "setenv SSH_AUTH_SOCK \(path);\nsetenv SSH_AGENT_PID \(pid);\necho Agent pid \(pid);\n"
            : "SSH_AUTH_SOCK=\(path); export SSH_AUTH_SOCK;\nSSH_AGENT_PID=\(pid); export SSH_AGENT_PID;\necho Agent pid \(pid);\n"
    }

    /// A path as a shell word: as it is when it holds only safe characters, else in
    /// single quotes.
    static func quoted(_ path: String) -> String {
        let safe = path.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte)
                || "/._-+:@%,".utf8.contains(byte)
        }
        return safe ? path : "'" + path.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        return FileManager.default.currentDirectoryPath + "/" + path
    }
}
