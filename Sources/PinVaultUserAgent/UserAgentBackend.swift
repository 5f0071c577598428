import Dispatch
import FoundationEssentials
import Glibc
import Logging
import PinVaultAgentDoor
import PinVaultClient
import PinVaultCrypto
import PinVaultSSHProtocol
import PinVaultDoor
import PinVaultTransport
import Synchronization

/// The keys behind the per-user agent: pinvaultd, reached over Varlink as the user.
/// It offers the user's `ssh` credentials, locked ones too, with their certificates;
/// asked to sign with a locked key it asks for the PIN (`Prompt`), unlocks it for
/// `unlock_ttl_seconds`, and signs through `AgentSign` — where the engine decides, as for
/// every door, what the key may sign. It holds no secret but a PIN on its way from the
/// prompt to the daemon, in locked memory, wiped by the call that carries it.
final class UserAgentBackend: SSHAgentBackend {
    let configuration: AgentConfiguration
    let prompts: PromptChain
    let logger: Logger
    /// The user's home, for `known_hosts`.
    let home: String?
    /// The agent's own uid: the only peer it serves, besides root.
    let owner = getuid()
    /// One connection to pinvaultd per ssh connection (its requests come one at a time).
    private let clients = Mutex<[ConnectionID: PinVaultClient]>([:])
    /// What List said on each ssh connection, kept while it lasts: ssh asks for the
    /// identities once per connection, and each signature needs its key's credential
    /// (user and label: agent.toml names keys so). Dropped with the connection, and when
    /// an answer of the daemon says it is stale (NoSuchCredential, WrongPurpose) or the
    /// daemon's connection was lost (it may have restarted on another vault). It holds
    /// what a key is, never whether it is unlocked: that is asked anew every time.
    private let listed = Mutex<[ConnectionID: [Credential]]>([:])
    /// One question at a time: a second request for a key being unlocked waits, then
    /// finds it unlocked.
    private let prompting = AsyncLock()
    /// Where prompts block (spawn, read, wait), off the cooperative pool.
    let promptQueue = DispatchQueue(label: "pv-agent-prompt")
    /// Where notices wait to be dismissed, one at a time, holding no question back.
    private let noticeQueue = DispatchQueue(label: "pv-agent-notice")
    /// pinvaultd on the agent's own event loop, for the one-call way of a signature;
    /// set once, before the loop runs (`attach`).
    private let onLoop = Mutex<DaemonOnLoop?>(nil)
    /// Requests being served: the agent is not idle while one is (a prompt on screen).
    let inFlight = Atomic<Int>(0)

    /// PIN tries per request before it fails (as ssh-agent and gpg-agent allow three).
    static let pinTries = 3
    /// The most AgentSign calls one signature takes: refused for want of a PIN (then
    /// unlocked), of a yes (then asked), then made.
    static let signingSteps = 3

    init(configuration: AgentConfiguration, prompts: PromptChain, home: String?, logger: Logger) {
        self.configuration = configuration
        self.prompts = prompts
        self.home = home
        self.logger = logger
    }

    /// Gives the backend its connection to pinvaultd on the loop that serves ssh.
    func attach(_ descriptors: LoopDescriptors) {
        onLoop.withLock { $0 = DaemonOnLoop(socketPath: configuration.daemonSocket, descriptors: descriptors) }
    }

    // MARK: SSHAgentBackend

    func identities(_ call: AgentCall, answer: @escaping @Sendable ([SSHAgentReply.Identity]?) -> Void) {
        // Asked again on the same connection: answered here, on the loop.
        if call.peer.uid == owner || call.peer.uid == 0, let credentials = listed.withLock({ $0[call.connection] }) {
            return answer(Self.identities(credentials))
        }
        serve(call, answer: answer) { [self] in
            Self.identities(try await credentials(call))
        }
    }

    private static func identities(_ credentials: [Credential]) -> [SSHAgentReply.Identity] {
        SSHAgentOffer.identities(credentials.map {
            SSHAgentOffer(algorithm: $0.algorithm, publicKey: $0.publicKey, user: $0.user, label: $0.label, certificates: $0.sshCertificates)
        })
    }

    /// The user's ssh credentials: the connection's List, made now when it has none.
    private func credentials(_ call: AgentCall) async throws -> [Credential] {
        if let kept = listed.withLock({ $0[call.connection] }) { return kept }
        let credentials = try await withClient(call, retrying: true) { try await $0.list(purpose: .ssh) }
        // Kept only for a connection still open: the transport cancels the request before
        // connectionClosed drops the entry under the same lock, so one stored after a
        // live look here is dropped there.
        listed.withLock { if !call.isCancelled() { $0[call.connection] = credentials } }
        return credentials
    }

    /// Forgets the connection's List after an answer that says it is stale.
    private func forgetListIfStale(_ error: PinVaultError, _ call: AgentCall) {
        if error.code == .noSuchCredential || error.code == .wrongPurpose || Self.connectionGone(error) {
            listed.withLock { $0[call.connection] = nil }
        }
    }

    func sign(keyBlob: [UInt8], data: [UInt8], flags: UInt32, _ call: AgentCall, answer: @escaping @Sendable ([UInt8]?) -> Void) {
        let fullWay: @Sendable () -> Void = { [self] in serve(call, answer: answer) { [self] in try await signature(keyBlob: keyBlob, data: data, call) } }
        // The common case in one call, on the event loop, with no task and no other
        // thread: an unlocked key whose rules are known without a List (its key id is its
        // public key's hash; its credential is in the connection's List, or agent.toml
        // has no rules that could name it). A key that needs a PIN or a yes, or a daemon
        // that restarted, takes the full way; any other refusal is the answer.
        let forwarded = call.state.isForwarded
        guard call.peer.uid == owner || call.peer.uid == 0,
              let publicKey = SSHAgentOffer.publicKey(ofBlob: keyBlob), let keyId = try? KeyID(publicKey: publicKey),
              let daemon = onLoop.withLock({ $0 })
        else { return fullWay() }
        let rules: AgentKeyRules
        if let credential = listed.withLock({ $0[call.connection]?.first { $0.publicKey == publicKey } }) {
            rules = self.rules(for: credential)
        } else if configuration.confirm.isEmpty && (configuration.allowForwarding.isEmpty || !forwarded) {
            rules = AgentKeyRules()
        } else {
            return fullWay()
        }
        let frame: ReplyBuffer
        do {
            frame = try AgentSignCall.frame(keyId: keyId.hex, data: data, forwarded: forwarded, rules: rules)
        } catch {
            return answer(nil)  // not data any key signs here (its size)
        }
        inFlight.add(1, ordering: .relaxed)
        let written = daemon.call(frame) { [self] result in
            defer { inFlight.subtract(1, ordering: .relaxed) }
            switch result {
            case .success(let signature):
                answer(signature)
            case .failure(let error) where error.code == .notUnlocked || error.code == .confirmationRequired || Self.connectionGone(error):
                if call.isCancelled() { answer(nil) } else { fullWay() }
            case .failure(let error):
                forgetListIfStale(error, call)
                refused(error, keyId: keyId.hex)
                answer(nil)
            }
        }
        if !written {
            inFlight.subtract(1, ordering: .relaxed)
            fullWay()
        }
    }

    func remove(keyBlob: [UInt8]?, _ call: AgentCall, answer: @escaping @Sendable (Bool) -> Void) {
        serve(call, answer: { answer($0 ?? false) }) { [self] in
            let credentials = try await withClient(call, retrying: true) { try await $0.list(purpose: .ssh) }
            let chosen = credentials.filter { credential in
                credential.unlockedUntil != nil && (keyBlob.map { SSHAgentOffer.publicKey(ofBlob: $0) == credential.publicKey } ?? true)
            }
            for credential in chosen {
                _ = try await withClient(call, retrying: true) { try await $0.lock(keyId: credential.keyId) }
            }
            // ssh-add -D says "All identities removed.": the keys stay in pinvaultd and
            // stay listed, locked, and their next use asks for the PIN again.
            let names = chosen.map { SSHKey.comment(user: $0.user, label: $0.label) }
            logger.notice("""
                ssh-add \(keyBlob == nil ? "-D" : "-d"): locked \(chosen.count) key\(chosen.count == 1 ? "" : "s")\
                \(names.isEmpty ? "" : " (" + names.joined(separator: ", ") + ")"); \
                they stay listed, and their next use asks for the PIN
                """)
            return keyBlob == nil || !chosen.isEmpty
        }
    }

    func connectionClosed(_ connection: ConnectionID) {
        listed.withLock { $0[connection] = nil }
        clients.withLock { $0.removeValue(forKey: connection) }?.close()
    }

    // MARK: Signing

    private func signature(keyBlob: [UInt8], data: [UInt8], _ call: AgentCall) async throws -> [UInt8] {
        guard let publicKey = SSHAgentOffer.publicKey(ofBlob: keyBlob) else { throw Refused() }
        // A key the connection's List does not hold may be newer than it: asked anew.
        var found = try await credentials(call).first(where: { $0.publicKey == publicKey })
        if found == nil {
            listed.withLock { $0[call.connection] = nil }
            found = try await credentials(call).first(where: { $0.publicKey == publicKey })
        }
        guard let credential = found else { throw Refused() }
        let forwarded = call.state.isForwarded
        let rules = rules(for: credential)
        // Made when a prompt needs it (it reads known_hosts), not for every signature.
        let description = { @Sendable [home] in
            KeyDescription.request(
                comment: SSHKey.comment(user: credential.user, label: credential.label),
                key: SSHKey(algorithm: credential.algorithm, publicKey: publicKey), data: data,
                destination: call.state.destination(of: data), home: home
            )
        }
        // The daemon is asked first, before any prompt: what it refuses on the request
        // alone (a forwarded signature this key may not make, locked or not) is refused
        // without a PIN dialog. Then each step it asks for: a PIN (NotUnlocked), a yes
        // (ConfirmationRequired, by the session's rule or this agent's).
        var confirmed = false
        var unlocked = false
        for _ in 0..<Self.signingSteps {
            let saidYes = confirmed
            do {
                return try await withClient(call, retrying: true) {
                    try await $0.agentSign(keyId: credential.keyId, data: data, forwarded: forwarded, confirmed: saidYes, rules: rules)
                }
            } catch let error as PinVaultError where error.code == .notUnlocked && !unlocked {
                // This agent's own rule asks before the PIN, as before each use.
                if rules.confirmEachUse && !confirmed {
                    guard try await ask(call, { prompts, cancelled in prompts.confirm(description(), isCancelled: cancelled) }) else {
                        throw Refused()
                    }
                    confirmed = true
                }
                try await unlock(credential, description: description, call)
                unlocked = true
            } catch let error as PinVaultError where error.code == .confirmationRequired && !confirmed {
                guard try await ask(call, { prompts, cancelled in prompts.confirm(description(), isCancelled: cancelled) }) else {
                    throw Refused()
                }
                confirmed = true
            } catch let error as PinVaultError {
                forgetListIfStale(error, call)
                refused(error, keyId: credential.keyId)
                throw error
            }
        }
        throw Refused()
    }

    /// This agent's rules for `credential` (agent.toml's `confirm`, `allow_forwarding`),
    /// which the daemon applies beside the key's session, whoever unlocked it.
    private func rules(for credential: Credential) -> AgentKeyRules {
        AgentKeyRules(
            confirmEachUse: wantsConfirmation(credential),
            allowForwarding: AgentConfiguration.names(
                configuration.allowForwarding, keyId: credential.keyId, user: credential.user, label: credential.label
            )
        )
    }

    /// Logs why the daemon refused a signature, when the refusal says something the
    /// user should see (ssh itself only says "agent refused operation").
    private func refused(_ error: PinVaultError, keyId: String) {
        switch error.code {
        case .forwardingNotAllowed:
            logger.notice("""
                refused a signature with key \(keyId) for a forwarded agent (ssh -A): the key may not sign \
                forwarded (allow_forwarding in agent.toml, and pinvault unlock --allow-forwarding for a \
                session opened elsewhere)
                """)
        case .wrongPurpose, .invalidParameter:
            logger.notice("refused a signature with key \(keyId): \(error.description)")
        default:
            break
        }
    }

    /// Asks for the PIN and unlocks `credential` — unless, once this request's turn to
    /// ask has come, another request has unlocked it meanwhile. A cancelled prompt sends
    /// nothing (no attempt counted); a wrong PIN is asked again, saying how many
    /// attempts are left; a throttled or blocked key is told and ends the request.
    private func unlock(_ credential: Credential, description: @escaping @Sendable () -> PromptText, _ call: AgentCall) async throws {
        try await prompting.withLock { [self] in
            let now = try await withClient(call, retrying: true) { try await $0.list(user: credential.user, purpose: .ssh) }
            guard let current = now.first(where: { $0.keyId == credential.keyId }) else { throw Refused() }
            if current.unlockedUntil != nil { return }
            // A key that takes no PIN now is told about, not asked for one.
            switch current.state {
            case .throttled:
                let seconds = max(Int(((current.lockedUntil?.timeIntervalSinceNow) ?? 0).rounded(.up)), 1)
                try await refuse(call, "PinVault: too many wrong PINs for \(current.user): try again in \(seconds) s")
            case .blocked:
                try await refuse(call, "PinVault: the key of \(current.user) is blocked after too many wrong PINs; an administrator must unblock it")
            case .pendingUnregistration:
                try await refuse(call, "PinVault: the key of \(current.user) is being unregistered")
            case .active:
                break
            }
            var error: String?
            // Wrong PINs typed in this very prompt: the user knows of those.
            var typedWrong = 0
            for _ in 0..<Self.pinTries {
                guard let pin = try await askPIN(description: description(), error: error, call) else { throw Refused() }
                do {
                    let session = try await withClient(call, retrying: false) {
                        try await $0.unlock(
                            user: credential.user, keyId: credential.keyId, pin: pin,
                            ttl: .seconds(configuration.unlockTTLSeconds),
                            confirmEachUse: wantsConfirmation(credential),
                            allowForwarding: AgentConfiguration.names(
                                configuration.allowForwarding, keyId: credential.keyId, user: credential.user, label: credential.label
                            )
                        )
                    }
                    reportWrongPINs(session.failedAttemptsCleared - typedWrong, credential)
                    return
                } catch let failure as PinVaultError {
                    pin.wipe()
                    switch failure.code {
                    case .wrongPin:
                        typedWrong += 1
                        let left = failure.remainingAttempts ?? 0
                        error = "Wrong PIN: \(left) attempt\(left == 1 ? "" : "s") left"
                    case .lockedOut, .credentialBlocked, .credentialWiped:
                        try await refuse(call, "PinVault: " + failure.description)
                    case .invalidParameter:
                        // Not a PIN the daemon takes (too long, not UTF-8): nothing was counted.
                        error = "That is not a PIN: \(failure.description)"
                    case .conflict:
                        // The credential changed while the PIN was checked; nothing was counted.
                        error = "The key changed meanwhile: type the PIN again"
                    case .tooManySessions:
                        try await refuse(call, "PinVault: " + failure.description + " (pinvault lock ends sessions)")
                    default:
                        throw failure
                    }
                }
            }
            throw Refused()
        }
    }

    /// Tells the user why the request ends, and ends it at once: the notice stays up
    /// on a queue of its own (until dismissed or its deadline), holding no other prompt.
    private func refuse(_ call: AgentCall, _ message: String) async throws -> Never {
        logger.notice("\(message)")
        notify(message)
        throw Refused()
    }

    /// Shows `message` in a notice that holds no question back.
    private func notify(_ message: String) {
        guard !prompts.isEmpty else { return }
        noticeQueue.async { [prompts] in _ = prompts.tell(message, isCancelled: { false }) }
    }

    /// Tells the user of wrong PINs a right one cleared that were not typed in this
    /// agent's prompt — someone else may have been guessing — in the words the CLI and
    /// PAM use, in a notice and in the log.
    private func reportWrongPINs(_ count: Int, _ credential: Credential) {
        guard let said = FailedAttempts.notice(count) else { return }
        let key = SSHKey.comment(user: credential.user, label: credential.label)
        logger.warning("key \(credential.keyId) (\(key)) unlocked: \(said)")
        notify("PinVault key \(key): \(said)")
    }

    private func wantsConfirmation(_ credential: Credential) -> Bool {
        AgentConfiguration.names(configuration.confirm, keyId: credential.keyId, user: credential.user, label: credential.label)
    }

    // MARK: Plumbing

    /// Runs `work` for a peer this agent serves (its own uid, or root), answering its
    /// result, or nil when it failed.
    private func serve<T: Sendable>(
        _ call: AgentCall, answer: @escaping @Sendable (T?) -> Void, _ work: @escaping @Sendable () async throws -> T
    ) {
        guard call.peer.uid == owner || call.peer.uid == 0, !call.isCancelled() else { return answer(nil) }
        inFlight.add(1, ordering: .relaxed)
        Task {
            defer { inFlight.subtract(1, ordering: .relaxed) }
            answer(try? await work())
        }
    }

    /// Runs `body` with the connection's client to pinvaultd; when that connection is
    /// gone (the daemon restarted) a new one is made, and `body` run again if `retrying`.
    private func withClient<T: Sendable>(
        _ call: AgentCall, retrying: Bool, _ body: @Sendable (PinVaultClient) async throws -> T
    ) async throws -> T {
        do {
            return try await body(try client(for: call))
        } catch let error as PinVaultError where Self.connectionGone(error) {
            listed.withLock { $0[call.connection] = nil }
            clients.withLock { $0.removeValue(forKey: call.connection) }?.close()
            guard retrying else { throw error }
            return try await body(try client(for: call))
        }
    }

    /// The ssh connection's client, connected on first use. None for a connection that
    /// has closed: the transport cancels its request before `connectionClosed`, so a
    /// client kept after that check is one `connectionClosed` will find and close.
    private func client(for call: AgentCall) throws -> PinVaultClient {
        if let existing = clients.withLock({ $0[call.connection] }) { return existing }
        guard !call.isCancelled() else { throw Refused() }
        let made = try PinVaultClient(socketPath: configuration.daemonSocket, timeout: .seconds(60))
        let kept = clients.withLock { table -> PinVaultClient? in
            guard !call.isCancelled() else { return nil }
            if let raced = table[call.connection] { return raced }
            table[call.connection] = made
            return made
        }
        guard let kept else {
            made.close()
            throw Refused()
        }
        if kept !== made { made.close() }
        return kept
    }

    private static func connectionGone(_ error: PinVaultError) -> Bool {
        [.connectionLost, .daemonUnavailable, .timedOut].contains(error.code)
    }

    struct Refused: Error {}
}
