import ArgumentParser
import FoundationEssentials
import Glibc
import PinVaultClient
import Synchronization

/// `pinvault unlock USER [--key-id ID] [--ttl DURATION] [--bind] [--confirm] [--allow-forwarding]`
struct UnlockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "Keep a credential unlocked for a while, so that it signs without a PIN.",
        discussion: """
            Checks the PIN (a wrong one counts, as in auth) and keeps the credential's key \
            open in pinvaultd for --ttl (default 15m; the daemon caps it at its \
            sessions.max_ttl_seconds). Until then `pinvault sign` and the daemon's ssh-agent \
            socket ($SSH_AUTH_SOCK) sign with it without a PIN, for any process of your uid. \
            `pinvault lock`, a change of the credential (change-pin, unregister, wipe) and \
            the daemon's stop end it sooner. Unlocking again extends it.

            With --bind the session also ends when this command does: it stays in the \
            foreground, keeping its connection to the daemon alive, until interrupted \
            (Ctrl-C, SIGTERM) or until the session ends.

            With --confirm every signature needs your yes, asked by the per-user agent \
            (pinvault agent) as ssh-add -c does; nothing else can ask, so the daemon's own \
            agent socket and `pinvault sign` refuse such a session (exit status 12). \
            Without --allow-forwarding an agent signs nothing for a connection ssh \
            forwarded (ssh -A): a root user on the host you forwarded to cannot use the key.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var credential: CredentialOptions
    @OptionGroup var pins: PinOptions

    @Option(help: ArgumentHelp("How long the session lasts: 90s, 15m, 1h, 1h30m, or seconds.", valueName: "duration"))
    var ttl = SessionDuration(seconds: 900)

    @Flag(help: "End the session when this command ends; stay in the foreground until interrupted.")
    var bind = false

    @Flag(help: "Ask for a yes before each signature (through the per-user agent's prompt).")
    var confirm = false

    @Flag(help: "Let agents sign for connections ssh forwarded (ssh -A).")
    var allowForwarding = false

    /// How often --bind shows the daemon the connection is in use (its idle timeout,
    /// server.idle_timeout_seconds, would otherwise close it, and the session with it).
    static let keepAliveSeconds = 5

    func run() async throws {
        try await global.run { console in
            let input = try pins.input()
            let keyId = try await CredentialChoice.choose(
                credential, global: global, input: input, purposes: [.authenticate, .ssh, .legacy]
            )
            let pin = try input.readPIN(prompt: "PIN for \(credential.user): ")
            let client = try global.connect()
            defer { client.close() }
            let session = try await client.unlock(
                user: credential.user, keyId: keyId, pin: pin, ttl: .seconds(ttl.seconds), bindToConnection: bind,
                confirmEachUse: confirm, allowForwarding: allowForwarding
            )
            console.show(session.json) {
                console.say("Unlocked \(session.keyId) until \(WireText.time(session.unlockedUntil)).")
            }
            console.noteFailedAttemptsCleared(session.failedAttemptsCleared)
            guard bind else { return .success }
            return try await Self.holdSession(client, until: session.unlockedUntil, console: console)
        }
    }

    /// --bind: keeps the connection (and so the session) until SIGINT or SIGTERM, or
    /// until the session's time is up.
    private static func holdSession(_ client: PinVaultClient, until: Date, console: Console) async throws -> ExitStatus {
        let stop = StopSignal.install()
        var sinceKeepAlive = 0
        while !stop.received && Date() < until {
            try await Task.sleep(nanoseconds: 100_000_000)
            sinceKeepAlive += 100
            if sinceKeepAlive >= keepAliveSeconds * 1000 {
                sinceKeepAlive = 0
                _ = try await client.getPolicy()
            }
        }
        if !console.json { console.note("the session ended") }
        return .success
    }
}

/// SIGINT and SIGTERM, noted instead of ending the process, so that `unlock --bind`
/// closes its connection (ending the session) and exits 0.
private final class StopSignal: Sendable {
    private static let flag = Atomic<Bool>(false)

    static func install() -> StopSignal {
        signal(SIGINT) { _ in StopSignal.flag.store(true, ordering: .relaxed) }
        signal(SIGTERM) { _ in StopSignal.flag.store(true, ordering: .relaxed) }
        return StopSignal()
    }

    var received: Bool { Self.flag.load(ordering: .relaxed) }
}
