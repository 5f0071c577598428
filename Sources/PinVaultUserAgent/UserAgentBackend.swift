import FoundationEssentials
import Glibc
import Logging
import PinVaultAgentDoor
import PinVaultClient
import PinVaultCrypto
import PinVaultDoor
import PinVaultSSHProtocol
import PinVaultSystem
import PinVaultTransport

/// The keys behind the per-user agent: pinvaultd, reached over Varlink as the user.
/// It offers the user's `ssh` credentials, locked ones too, with their certificates;
/// asked to sign with a locked key it asks for the PIN (`Prompt`), unlocks it for
/// `unlock_ttl_seconds`, and signs through `AgentSign` — where the engine decides, as for
/// every door, what the key may sign. It holds no secret but a PIN on its way from the
/// prompt to the daemon, in locked memory, wiped by the call that carries it.
///
/// One concurrency model: the event loop that serves ssh owns everything here. The door
/// calls `identities`, `sign` and `remove` on the loop; every call to pinvaultd is written
/// and answered on the loop (`DaemonOnLoop`); each request goes on in steps, each step
/// started by the event that ends the one before — a reply of pinvaultd, a prompt's
/// answer — so that nothing here is shared between threads and nothing needs a lock.
/// What blocks runs beside the loop on a `BlockingWorker`: the prompt programs (spawned,
/// asked, waited for), one question at a time, and the notices, which wait to be
/// dismissed on a worker of their own so that they hold no question back. A worker's job
/// touches nothing of the loop's; what it found comes back as an event
/// (`LoopDescriptors.post`), which runs on the loop in its next turn. A request is thus
/// never blocked on, only continued: a prompt on screen holds up no other ssh
/// connection's signature.
final class UserAgentBackend: SSHAgentBackend, @unchecked Sendable {
    let configuration: AgentConfiguration
    let prompts: PromptChain
    let logger: Logger
    /// The user's home, for `known_hosts`.
    let home: String?
    /// The agent's own uid: the only peer it serves, besides root.
    let owner = getuid()

    // Everything below is the loop's, set once by `attach` before it runs.

    /// Where blocking work reports back: events run on the loop.
    private(set) var loop: LoopDescriptors?
    /// pinvaultd, for every call but PIN checks.
    private var daemon: DaemonOnLoop?
    /// pinvaultd for `Unlock`: a PIN check waits for its turn at the KDF, and on a
    /// connection of its own holds up no other ssh connection's signature meanwhile.
    private(set) var pinChecks: DaemonOnLoop?
    /// What List said on each ssh connection, kept while it lasts: ssh asks for the
    /// identities once per connection, and each signature needs its key's credential
    /// (user and label: agent.toml names keys so). Dropped with the connection, and when
    /// an answer of the daemon says it is stale (NoSuchCredential, WrongPurpose) or the
    /// daemon's connection was lost (it may have restarted on another vault). It holds
    /// what a key is, never whether it is unlocked: that is asked anew every time.
    private var listed: [ConnectionID: Listed] = [:]
    /// Requests being served: the agent is not idle while one is (a prompt on screen).
    private(set) var inFlight = 0
    /// One unlock at a time: the requests waiting for their turn to ask for a PIN (a
    /// second request for a key being unlocked waits, then finds it unlocked).
    let unlockTurns = TurnQueue()
    /// Where questions are asked (the PIN, a yes), one at a time.
    let questions = BlockingWorker(name: "pv-agent-prompt")
    /// Where notices wait to be dismissed, holding no question back.
    let notices = BlockingWorker(name: "pv-agent-notice")

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

    /// Gives the backend the loop that serves ssh, and its connections to pinvaultd there.
    func attach(_ descriptors: LoopDescriptors) throws(SystemError) {
        let socket = configuration.daemonSocket, timeout = configuration.daemonTimeoutSeconds
        loop = descriptors
        daemon = try DaemonOnLoop(socketPath: socket, descriptors: descriptors, timeoutSeconds: timeout, name: "pinvaultd", logger: logger)
        pinChecks = try DaemonOnLoop(
            socketPath: socket, descriptors: descriptors, timeoutSeconds: timeout, name: "pinvaultd (PIN checks)", logger: logger
        )
        // pinvaultd may come back on another vault: what a List said goes with the connection.
        daemon?.closed = { [unowned self] in listed.removeAll() }
    }

    // MARK: SSHAgentBackend

    func identities(_ call: AgentCall, answer: @escaping @Sendable ([SSHAgentReply.Identity]?) -> Void) {
        guard serves(call) else { return answer(nil) }
        // Asked again on the same connection: answered from its List.
        if let kept = listed[call.connection] { return answer(kept.identities) }
        begin()
        credentials(call) { [self] result in
            end()
            answer((try? result.get()).map { listed[call.connection]?.identities ?? Listed($0).identities })
        }
    }

    /// A connection's List, and the identities it offers ssh (made once: ssh may ask again).
    private struct Listed {
        let credentials: [Credential]
        let identities: [SSHAgentReply.Identity]

        init(_ credentials: [Credential]) {
            self.credentials = credentials
            identities = SSHAgentOffer.identities(credentials.map {
                SSHAgentOffer(algorithm: $0.algorithm, publicKey: $0.publicKey, user: $0.user, label: $0.label, certificates: $0.sshCertificates)
            })
        }
    }

    func sign(keyBlob: [UInt8], data: [UInt8], flags: UInt32, _ call: AgentCall, answer: @escaping @Sendable ([UInt8]?) -> Void) {
        guard serves(call), let publicKey = SSHAgentOffer.publicKey(ofBlob: keyBlob), let keyId = try? KeyID(publicKey: publicKey) else {
            return answer(nil)
        }
        begin()
        let finish: ([UInt8]?) -> Void = { [self] signature in
            end()
            answer(signature)
        }
        // The common case in one call: an unlocked key whose rules are known without a
        // List (its key id is its public key's hash; its credential is in the
        // connection's List, or agent.toml has no rules that could name it). A key that
        // needs a PIN or a yes takes the full way; any other refusal is the answer.
        let rules: AgentKeyRules
        if let credential = listed[call.connection]?.credentials.first(where: { $0.publicKey == publicKey }) {
            rules = self.rules(for: credential)
        } else if configuration.confirm.isEmpty && (configuration.allowForwarding.isEmpty || !call.state.isForwarded) {
            rules = AgentKeyRules()
        } else {
            return signFullWay(publicKey: publicKey, data: data, call, finish)
        }
        request(retrying: true, { () throws(PinVaultError) in
            try LoopCall.agentSign(keyId: keyId.hex, data: data, forwarded: call.state.isForwarded, rules: rules)
        }, decode: LoopCall.signature) { [self] result in
            switch result {
            case .success(let signature):
                finish(signature)
            case .failure(let error) where error.code == .notUnlocked || error.code == .confirmationRequired:
                signFullWay(publicKey: publicKey, data: data, call, finish)
            case .failure(let error):
                refused(error, keyId: keyId.hex, call)
                finish(nil)
            }
        }
    }

    func remove(keyBlob: [UInt8]?, _ call: AgentCall, answer: @escaping @Sendable (Bool) -> Void) {
        guard serves(call) else { return answer(false) }
        begin()
        let finish: (Bool) -> Void = { [self] removed in
            end()
            answer(removed)
        }
        request(retrying: true, { () throws(PinVaultError) in try LoopCall.list(purpose: .ssh) }, decode: LoopCall.credentials) {
            [self] result in
            guard case .success(let credentials) = result else { return finish(false) }
            let chosen = credentials.filter { credential in
                credential.unlockedUntil != nil && (keyBlob.map { SSHAgentOffer.publicKey(ofBlob: $0) == credential.publicKey } ?? true)
            }
            lock(chosen[...]) { [self] locked in
                guard locked else { return finish(false) }
                // ssh-add -D says "All identities removed.": the keys stay in pinvaultd
                // and stay listed, locked, and their next use asks for the PIN again.
                let names = chosen.map { SSHKey.comment(user: $0.user, label: $0.label) }
                logger.notice("""
                    ssh-add \(keyBlob == nil ? "-D" : "-d"): locked \(chosen.count) key\(chosen.count == 1 ? "" : "s")\
                    \(names.isEmpty ? "" : " (" + names.joined(separator: ", ") + ")"); \
                    they stay listed, and their next use asks for the PIN
                    """)
                finish(keyBlob == nil || !chosen.isEmpty)
            }
        }
    }

    /// Locks each of `credentials` in turn; false when one could not be.
    private func lock(_ credentials: ArraySlice<Credential>, _ completion: @escaping (Bool) -> Void) {
        guard let first = credentials.first else { return completion(true) }
        request(retrying: true, { () throws(PinVaultError) in try LoopCall.lock(keyId: first.keyId) }, decode: LoopCall.lockedKeyIds) {
            [self] result in
            guard case .success = result else { return completion(false) }
            lock(credentials.dropFirst(), completion)
        }
    }

    func connectionClosed(_ connection: ConnectionID) {
        listed[connection] = nil
    }

    // MARK: The full way of a signature

    /// What one signature that takes the full way has been through.
    private final class Signing {
        let credential: Credential
        let publicKey: [UInt8]
        let data: [UInt8]
        let call: AgentCall
        let rules: AgentKeyRules
        let finish: ([UInt8]?) -> Void
        var confirmed = false
        var unlocked = false
        var steps = 0

        init(credential: Credential, publicKey: [UInt8], data: [UInt8], call: AgentCall, rules: AgentKeyRules, finish: @escaping ([UInt8]?) -> Void) {
            self.credential = credential
            self.publicKey = publicKey
            self.data = data
            self.call = call
            self.rules = rules
            self.finish = finish
        }

        /// The question a prompt shows (made on the prompt's thread: it reads known_hosts).
        func description(home: String?) -> @Sendable () -> PromptText {
            let credential = credential, publicKey = publicKey, data = data, state = call.state
            return {
                KeyDescription.request(
                    comment: SSHKey.comment(user: credential.user, label: credential.label),
                    key: SSHKey(algorithm: credential.algorithm, publicKey: publicKey), data: data,
                    destination: state.destination(of: data), home: home
                )
            }
        }
    }

    /// The key's credential (from the connection's List), then `AgentSign` and each step
    /// the daemon asks for: a PIN (NotUnlocked), a yes (ConfirmationRequired, by the
    /// session's rule or this agent's). The daemon is asked first, before any prompt: what
    /// it refuses on the request alone (a forwarded signature this key may not make,
    /// locked or not) is refused without a PIN dialog.
    private func signFullWay(publicKey: [UInt8], data: [UInt8], _ call: AgentCall, _ finish: @escaping ([UInt8]?) -> Void) {
        credential(publicKey, call) { [self] credential in
            guard let credential else { return finish(nil) }
            step(Signing(credential: credential, publicKey: publicKey, data: data, call: call, rules: rules(for: credential), finish: finish))
        }
    }

    /// The credential of `publicKey` in the connection's List; a key the List does not
    /// hold may be newer than it: asked anew.
    private func credential(_ publicKey: [UInt8], _ call: AgentCall, _ completion: @escaping (Credential?) -> Void) {
        credentials(call) { [self] result in
            if let found = try? result.get().first(where: { $0.publicKey == publicKey }) { return completion(found) }
            guard case .success = result else { return completion(nil) }
            listed[call.connection] = nil
            credentials(call) { completion(try? $0.get().first(where: { $0.publicKey == publicKey })) }
        }
    }

    private func step(_ signing: Signing) {
        guard signing.steps < Self.signingSteps, !signing.call.isCancelled() else { return signing.finish(nil) }
        signing.steps += 1
        let credential = signing.credential, call = signing.call
        let confirmed = signing.confirmed, rules = signing.rules
        request(retrying: true, { () throws(PinVaultError) in
            try LoopCall.agentSign(keyId: credential.keyId, data: signing.data, forwarded: call.state.isForwarded, confirmed: confirmed, rules: rules)
        }, decode: LoopCall.signature) { [self] result in
            switch result {
            case .success(let signature):
                signing.finish(signature)
            case .failure(let error) where error.code == .notUnlocked && !signing.unlocked:
                let unlockThenSign = { [self] in
                    unlock(credential, description: signing.description(home: home), call) { [self] unlocked in
                        guard unlocked else { return signing.finish(nil) }
                        signing.unlocked = true
                        step(signing)
                    }
                }
                // This agent's own rule asks before the PIN, as before each use.
                guard rules.confirmEachUse && !signing.confirmed else { return unlockThenSign() }
                confirm(signing.description(home: home), call) { yes in
                    guard yes else { return signing.finish(nil) }
                    signing.confirmed = true
                    unlockThenSign()
                }
            case .failure(let error) where error.code == .confirmationRequired && !signing.confirmed:
                confirm(signing.description(home: home), call) { [self] yes in
                    guard yes else { return signing.finish(nil) }
                    signing.confirmed = true
                    step(signing)
                }
            case .failure(let error):
                refused(error, keyId: credential.keyId, call)
                signing.finish(nil)
            }
        }
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

    func wantsConfirmation(_ credential: Credential) -> Bool {
        AgentConfiguration.names(configuration.confirm, keyId: credential.keyId, user: credential.user, label: credential.label)
    }

    /// Forgets what a refusal says is stale, and logs why the daemon refused a signature
    /// when that says something the user should see (ssh itself only says "agent
    /// refused operation").
    private func refused(_ error: PinVaultError, keyId: String, _ call: AgentCall) {
        if error.code == .noSuchCredential || error.code == .wrongPurpose {
            listed[call.connection] = nil
        }
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

    // MARK: Plumbing

    /// Whether this agent serves the peer: its own uid, or root; and it is still there.
    private func serves(_ call: AgentCall) -> Bool {
        (call.peer.uid == owner || call.peer.uid == 0) && !call.isCancelled()
    }

    private func begin() { inFlight += 1 }
    private func end() { inFlight -= 1 }

    /// The connection's List (`purpose: ssh`), made now when it has none, and kept while
    /// the connection lasts (a List answered after it closed is not kept: the transport
    /// cancels the request before `connectionClosed`).
    private func credentials(_ call: AgentCall, _ completion: @escaping (Result<[Credential], PinVaultError>) -> Void) {
        if let kept = listed[call.connection] { return completion(.success(kept.credentials)) }
        request(retrying: true, { () throws(PinVaultError) in try LoopCall.list(purpose: .ssh) }, decode: LoopCall.credentials) {
            [self] result in
            if case .success(let credentials) = result, !call.isCancelled() { listed[call.connection] = Listed(credentials) }
            completion(result)
        }
    }

    /// One call to pinvaultd on the loop (`make` writes it). When the connection was lost
    /// (pinvaultd restarted) and `retrying`, the call is made once more on a new one; a
    /// call pinvaultd left unanswered (`.timedOut`) fails, and its connection is made
    /// anew for the next request. Either way every List kept is dropped with the
    /// connection (`attach`).
    func request<T>(
        retrying: Bool, _ make: @escaping () throws(PinVaultError) -> ReplyBuffer,
        decode: @escaping (UnsafeRawBufferPointer) -> Result<T, PinVaultError>,
        _ completion: @escaping (Result<T, PinVaultError>) -> Void
    ) {
        guard let daemon else { return completion(.failure(.daemonUnavailable(socketPath: configuration.daemonSocket, errno: ENOTCONN))) }
        let frame: ReplyBuffer
        do throws(PinVaultError) {
            frame = try make()
        } catch {
            return completion(.failure(error))
        }
        daemon.call(frame, decode: decode) { [self] result in
            if retrying, case .failure(let error) = result, error.code == .connectionLost {
                return request(retrying: false, make, decode: decode, completion)
            }
            completion(result)
        }
    }
}
