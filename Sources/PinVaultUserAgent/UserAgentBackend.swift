import Dispatch
import FoundationEssentials
import Glibc
import PinVaultAgentDoor
import PinVaultClient
import PinVaultCrypto
import PinVaultSSHProtocol
import PinVaultDoor
import Synchronization

/// The keys behind the per-user agent: pinvaultd, reached over Varlink as the user.
/// It offers the user's `ssh` credentials, locked ones too, with their certificates;
/// asked to sign with a locked key it asks for the PIN (`Prompt`), unlocks it for
/// `unlock_ttl_seconds`, and signs through `AgentSign` — where the engine decides, as for
/// every door, what the key may sign. It holds no secret but a PIN on its way from the
/// prompt to the daemon, in locked memory, wiped by the call that carries it.
final class UserAgentBackend: SSHAgentBackend {
    let configuration: AgentConfiguration
    let prompt: (any Prompt)?
    /// The user's home, for `known_hosts`.
    let home: String?
    /// The agent's own uid: the only peer it serves, besides root.
    let owner = getuid()
    /// One connection to pinvaultd per ssh connection (its requests come one at a time).
    private let clients = Mutex<[ConnectionID: PinVaultClient]>([:])
    /// One question at a time: a second request for a key being unlocked waits, then
    /// finds it unlocked.
    private let prompting = AsyncLock()
    /// Where prompts block (spawn, read, wait), off the cooperative pool.
    private let promptQueue = DispatchQueue(label: "pv-agent-prompt")
    /// Where notices wait to be dismissed, one at a time, holding no question back.
    private let noticeQueue = DispatchQueue(label: "pv-agent-notice")
    /// Requests being served: the agent is not idle while one is (a prompt on screen).
    let inFlight = Atomic<Int>(0)

    /// PIN tries per request before it fails (as ssh-agent and gpg-agent allow three).
    static let pinTries = 3
    /// The most AgentSign calls one signature takes: refused for want of a PIN (then
    /// unlocked), of a yes (then asked), then made.
    static let signingSteps = 3

    init(configuration: AgentConfiguration, prompt: (any Prompt)?, home: String?) {
        self.configuration = configuration
        self.prompt = prompt
        self.home = home
    }

    // MARK: SSHAgentBackend

    func identities(_ call: AgentCall, answer: @escaping @Sendable ([SSHAgentReply.Identity]?) -> Void) {
        serve(call, answer: answer) { [self] in
            let credentials = try await withClient(call, retrying: true) { try await $0.list(purpose: .ssh) }
            return SSHAgentOffer.identities(credentials.map {
                SSHAgentOffer(publicKey: $0.publicKey, user: $0.user, label: $0.label, certificates: $0.sshCertificates)
            })
        }
    }

    func sign(keyBlob: [UInt8], data: [UInt8], flags: UInt32, _ call: AgentCall, answer: @escaping @Sendable ([UInt8]?) -> Void) {
        let fullWay: @Sendable () -> Void = { [self] in serve(call, answer: answer) { [self] in try await signature(keyBlob: keyBlob, data: data, call) } }
        // The common case in one call, on the client's queue, with no task: an unlocked
        // key this agent asks nothing about (its key id is its public key's hash, so no
        // List is needed). A key that needs a PIN or a yes, or a daemon that restarted,
        // takes the full way; any other refusal is the answer.
        // Only with a client already connected: a connect could block the loop.
        guard configuration.confirm.isEmpty, call.peer.uid == owner || call.peer.uid == 0,
              let publicKey = SSHAgentOffer.publicKey(ofBlob: keyBlob), let keyId = try? KeyID(publicKey: publicKey),
              let client = clients.withLock({ $0[call.connection] })
        else { return fullWay() }
        inFlight.add(1, ordering: .relaxed)
        client.agentSign(keyId: keyId.hex, data: data, forwarded: call.state.isForwarded) { [self] result in
            defer { inFlight.subtract(1, ordering: .relaxed) }
            switch result {
            case .success(let signature):
                answer(signature)
            case .failure(let error) where error.code == .notUnlocked || error.code == .confirmationRequired || Self.connectionGone(error):
                if call.isCancelled() { answer(nil) } else { fullWay() }
            case .failure:
                answer(nil)
            }
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
            return keyBlob == nil || !chosen.isEmpty
        }
    }

    func connectionClosed(_ connection: ConnectionID) {
        clients.withLock { $0.removeValue(forKey: connection) }?.close()
    }

    // MARK: Signing

    private func signature(keyBlob: [UInt8], data: [UInt8], _ call: AgentCall) async throws -> [UInt8] {
        guard let publicKey = SSHAgentOffer.publicKey(ofBlob: keyBlob) else { throw Refused() }
        let credentials = try await withClient(call, retrying: true) { try await $0.list(purpose: .ssh) }
        guard let credential = credentials.first(where: { $0.publicKey == publicKey }) else { throw Refused() }
        let forwarded = call.state.isForwarded
        // Made when a prompt needs it (it reads known_hosts), not for every signature.
        let description = { @Sendable [home] in
            KeyDescription.request(
                comment: SSHEd25519.comment(user: credential.user, label: credential.label), publicKey: publicKey, data: data,
                destination: call.state.destination(of: data), home: home
            )
        }
        var confirmed = false
        // This agent's own rule for the key: ask before every use.
        if wantsConfirmation(credential) {
            guard await ask(call, { prompt, cancelled in prompt.confirm(description: description(), isCancelled: cancelled) }) else {
                throw Refused()
            }
            confirmed = true
        }
        for _ in 0..<Self.signingSteps {
            let saidYes = confirmed
            do {
                return try await withClient(call, retrying: true) {
                    try await $0.agentSign(keyId: credential.keyId, data: data, forwarded: forwarded, confirmed: saidYes)
                }
            } catch let error as PinVaultError where error.code == .notUnlocked {
                try await unlock(credential, description: description, call)
            } catch let error as PinVaultError where error.code == .confirmationRequired && !confirmed {
                // Unlocked elsewhere (pinvault unlock --confirm): every use is asked.
                guard await ask(call, { prompt, cancelled in prompt.confirm(description: description(), isCancelled: cancelled) }) else {
                    throw Refused()
                }
                confirmed = true
            }
        }
        throw Refused()
    }

    /// Asks for the PIN and unlocks `credential` — unless, once this request's turn to
    /// ask has come, another request has unlocked it meanwhile. A cancelled prompt sends
    /// nothing (no attempt counted); a wrong PIN is asked again, saying how many
    /// attempts are left; a throttled or blocked key is told and ends the request.
    private func unlock(_ credential: Credential, description: @escaping @Sendable () -> String, _ call: AgentCall) async throws {
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
            for _ in 0..<Self.pinTries {
                guard let pin = await askPIN(description: description(), error: error, call) else { throw Refused() }
                do {
                    _ = try await withClient(call, retrying: false) {
                        try await $0.unlock(
                            user: credential.user, keyId: credential.keyId, pin: pin,
                            ttl: .seconds(configuration.unlockTTLSeconds),
                            confirmEachUse: wantsConfirmation(credential),
                            allowForwarding: AgentConfiguration.names(
                                configuration.allowForwarding, keyId: credential.keyId, user: credential.user, label: credential.label
                            )
                        )
                    }
                    return
                } catch let failure as PinVaultError {
                    pin.wipe()
                    switch failure.code {
                    case .wrongPin:
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
        if let prompt {
            noticeQueue.async { prompt.tell(message, isCancelled: { false }) }
        }
        throw Refused()
    }

    private func wantsConfirmation(_ credential: Credential) -> Bool {
        AgentConfiguration.names(configuration.confirm, keyId: credential.keyId, user: credential.user, label: credential.label)
    }

    // MARK: Prompts

    private func askPIN(description: String, error: String?, _ call: AgentCall) async -> PIN? {
        guard let prompt else { return nil }
        return await withCheckedContinuation { continuation in
            promptQueue.async {
                continuation.resume(returning: prompt.askPIN(description: description, error: error, isCancelled: call.isCancelled))
            }
        }
    }

    /// Runs a yes/no (or notice) question on the prompt queue.
    private func ask(_ call: AgentCall, _ question: @escaping @Sendable (any Prompt, @escaping @Sendable () -> Bool) -> Bool) async -> Bool {
        guard let prompt else { return false }
        return await withCheckedContinuation { continuation in
            promptQueue.async { continuation.resume(returning: question(prompt, call.isCancelled)) }
        }
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
