import PinVaultCBOR
import PinVaultCTAPHID
import PinVaultCrypto
import PinVaultEngine
import PinVaultSystem

/// PinVault as a CTAP 2.1 authenticator: the passkey door over the engine, behind the
/// CTAPHID door (`CTAPAuthenticator`). It speaks CTAP — CBOR in and out, the PIN/UV auth
/// protocols, tokens' HMACs — and asks the engine for everything a key or a PIN decides:
/// the PIN check (counted before it runs), the token's seed, each passkey's signature.
///
/// Per channel it keeps the pinUvAuthToken's secret (the HMAC key a platform proves it
/// holds the token with; the engine holds what the token unlocks), its protocol, and the
/// assertions and credentials the getNext commands hand out.
///
/// Reset wipes the caller's security key and passkeys, but only on a device just made:
/// within `resetWindowMilliseconds` of its connection's acceptance (`CTAPChannel.poweredUpAt`),
/// as CTAP allows it only just after power-up; later it is NOT_ALLOWED.
public final class EngineAuthenticator: CTAPAuthenticator, @unchecked Sendable {
    private let engine: VaultEngine
    /// Monotonic milliseconds, the CTAPHID door's clock (`CTAPChannel.poweredUpAt`).
    private let clock: @Sendable () -> Int64
    private let keyAgreement: KeyAgreementKey
    private let lock: CheckedLock
    private var states: [CTAPChannel: ChannelState] = [:]
    /// The same states by the engine's name for their channel (`ChannelState.key`).
    private var statesByKey: [UInt64: ChannelState] = [:]
    private var nextChannelKey: UInt64 = 1

    /// What one channel holds between requests.
    final class ChannelState: @unchecked Sendable {  // guarded by the authenticator's lock
        /// The engine's name for the channel (its token is bound to it).
        let key: UInt64
        var token: SecretBytes?
        var tokenProtocol: PinUvAuthProtocol?
        var nextAssertions: [Passkey.Assertion] = []
        /// What CredentialManagement's getNext subcommands hand out.
        var nextManaged: [CBORValue] = []
        /// The reply of the request pending on the channel, for CANCEL.
        var pending: Reply?
        init(key: UInt64) { self.key = key }
    }

    /// A request's reply, sent exactly once.
    final class Reply: @unchecked Sendable {
        private let send: @Sendable (ReplyBuffer) -> Void
        private let lock: CheckedLock
        private var sent = false
        init(_ send: @escaping @Sendable (ReplyBuffer) -> Void) throws(SystemError) {
            self.send = send
            lock = try CheckedLock()
        }
        func callAsFunction(_ status: CTAPStatus, _ body: CBORValue? = nil) {
            let first = (try? lock.withLock({ () throws(CTAPFailure) -> Bool in
                defer { sent = true }
                return !sent
            }, lockFailed: { _ in CTAPFailure(.other) })) ?? false
            guard first else { return }
            let buffer = ReplyBuffer(capacity: 1024)
            buffer.append(status.rawValue)
            if status == .ok, let body {
                CBOREncoder.encode(body).withUnsafeBytes { buffer.append($0) }
            }
            send(buffer)
        }
    }

    /// `clock` must be the CTAPHID door's (monotonic milliseconds). The authenticator
    /// follows the engine's tokens: when one ends — at its deadline too, with no request
    /// to notice — the channel's half of it is zeroed as well.
    public init(engine: VaultEngine, clock: @escaping @Sendable () -> Int64 = MonotonicClock.milliseconds) throws {
        self.engine = engine
        self.clock = clock
        keyAgreement = try KeyAgreementKey()
        lock = try CheckedLock()
        engine.onSecurityKeyTokensEnded { [weak self] channels in self?.tokensEnded(channels) }
    }

    /// The engine ended these channels' tokens: their HMAC keys go too (zeroed as released).
    /// The engine tells of an end after it, so a channel may hold a newer token by then
    /// (getPinToken again): asked under this lock, which `setToken` takes too, so that
    /// that token's key is never the one cleared.
    func tokensEnded(_ keys: [UInt64]) {
        let ended: [SecretBytes] = locked {
            keys.compactMap { key in
                guard let state = statesByKey[key], !engine.holdsSecurityKeyToken(channel: key) else { return nil }
                defer { clearToken(state) }
                return state.token
            }
        }
        _ = ended  // released here, outside the lock
    }

    private func locked<T>(_ body: () -> T) -> T {
        let result: T? = try? lock.withLock({ () throws(CTAPFailure) -> T in body() }, lockFailed: { _ in CTAPFailure(.other) })
        return result ?? body()
    }

    private func state(_ channel: CTAPChannel) -> ChannelState {
        locked {
            if let state = states[channel] { return state }
            let state = ChannelState(key: nextChannelKey)
            nextChannelKey += 1
            states[channel] = state
            statesByKey[state.key] = state
            return state
        }
    }

    // MARK: The seam

    public func cbor(_ request: SecretBytes, on channel: CTAPChannel, reply send: @escaping @Sendable (ReplyBuffer) -> Void) {
        guard let reply = try? Reply(send) else { return }
        let state = state(channel)
        locked { state.pending = reply }
        let message = request.withUnsafeBytes { Array($0) }
        guard let command = message.first else { return reply(.invalidLength) }
        let parameters: CTAPParameters
        do throws(CBORError) {
            parameters = CTAPParameters(map: message.count == 1 ? CBORMap() : try CBORDecoder.decodeMap(Array(message.dropFirst())))
        } catch {
            return reply(CTAPStatus(rawValue: error.ctapStatus) ?? .invalidCBOR)
        }
        let caller = Caller(uid: channel.uid, pid: channel.pid, isAdmin: false)
        do throws(CTAPFailure) {
            switch command {
            case 0x04: getInfo(caller, reply)
            case 0x06: try clientPin(parameters, caller, state, reply)
            case 0x01: try makeCredential(parameters, caller, state, reply)
            case 0x02: try getAssertion(parameters, caller, state, reply)
            case 0x08: getNextAssertion(state, reply)
            // 0x41: the same command under CTAP 2.1's prototype number, the only one
            // libfido2 sends before 1.15 (Debian 12's 1.12 among them).
            case 0x0A, 0x41: try credentialManagement(parameters, caller, state, reply)
            case 0x0B: reply(.ok)  // Selection: no button to wait for; the PIN is the presence.
            case 0x07: reset(caller, channel, state, reply)
            default: reply(.invalidCommand)
            }
        } catch {
            reply(error.status)
        }
    }

    public func cancel(_ channel: CTAPChannel) {
        let pending = locked { states[channel]?.pending }
        pending?(.keepaliveCancel)
    }

    public func channelClosed(_ channel: CTAPChannel) {
        guard let state = locked({ () -> ChannelState? in
            guard let state = states.removeValue(forKey: channel) else { return nil }
            statesByKey[state.key] = nil
            return state
        }) else { return }
        engine.endSecurityKeyToken(channel: state.key)
    }

    // MARK: Channel state

    var keyAgreementPublicKey: [UInt8] { keyAgreement.publicKey }
    var keyAgreementHolder: KeyAgreementKey { keyAgreement }

    func invalidateToken(_ state: ChannelState) {
        locked { clearToken(state) }
    }

    /// With the lock held: the token and what was handed out under it.
    private func clearToken(_ state: ChannelState) {
        state.token = nil
        state.tokenProtocol = nil
        state.nextAssertions = []
        state.nextManaged = []
    }

    /// The engine's name for the channel, once the channel has state (tests).
    func channelKey(_ channel: CTAPChannel) -> UInt64? {
        locked { states[channel]?.key }
    }

    /// The channel's token as the authenticator holds it, if any (tests).
    func token(on channel: CTAPChannel) -> SecretBytes? {
        locked { states[channel]?.token }
    }

    func setToken(_ state: ChannelState, _ token: SecretBytes, _ pinProtocol: PinUvAuthProtocol) {
        locked {
            state.token = token
            state.tokenProtocol = pinProtocol
        }
    }

    func tokenOf(_ state: ChannelState) -> (SecretBytes?, PinUvAuthProtocol?) {
        locked { (state.token, state.tokenProtocol) }
    }

    func setNextAssertions(_ state: ChannelState, _ assertions: [Passkey.Assertion]) {
        locked { state.nextAssertions = assertions }
    }

    func setNextManaged(_ state: ChannelState, _ items: [CBORValue]) {
        locked { state.nextManaged = items }
    }

    func popNextManaged(_ state: ChannelState) -> CBORValue? {
        locked { state.nextManaged.isEmpty ? nil : state.nextManaged.removeFirst() }
    }

    func popNextAssertion(_ state: ChannelState) -> Passkey.Assertion? {
        locked { state.nextAssertions.isEmpty ? nil : state.nextAssertions.removeFirst() }
    }

    // MARK: Engine calls

    func submit(_ request: VaultRequest, _ caller: Caller, _ answer: @escaping @Sendable (Result<VaultResult, VaultError>) -> Void) {
        engine.submit(request, from: caller, isCancelled: { false }, answer: answer)
    }

    /// A PIN or token refusal as CTAP says it.
    static func status(of error: VaultError) -> CTAPStatus {
        switch error {
        case .wrongPin: .pinInvalid
        case .lockedOut: .pinAuthBlocked
        case .credentialBlocked, .credentialWiped: .pinBlocked
        case .noSuchCredential: .noCredentials
        case .notUnlocked, .permissionDenied: .pinAuthInvalid
        case .confirmationRequired: .pinRequired
        case .pinPolicyViolation: .pinPolicyViolation
        case .tooManyCredentials: .notAllowed
        case .invalidChallenge: .invalidParameter
        case .busy, .shuttingDown, .conflict: .other
        default: .other
        }
    }

    // MARK: Reset

    /// How long after its power-up a device takes authenticatorReset: CTAP's ten seconds.
    public static let resetWindowMilliseconds: Int64 = 10_000

    /// authenticatorReset. CTAP allows it only within seconds of power-up, with the user
    /// present; a device here is a CTAPHID connection, so only a connection accepted at
    /// most ten seconds ago may reset (a program that opens one to reset at once), and
    /// any other is NOT_ALLOWED. The engine wipes the caller's security key, its passkeys
    /// with it, as Wipe deletes a credential (audited, tokens ended).
    private func reset(_ caller: Caller, _ channel: CTAPChannel, _ state: ChannelState, _ reply: Reply) {
        let age = clock() - channel.poweredUpAt
        guard age >= 0, age <= Self.resetWindowMilliseconds else { return reply(.notAllowed) }
        invalidateToken(state)
        submit(.securityKeyReset, caller) { result in
            switch result {
            case .success: reply(.ok)
            case .failure(let error): reply(Self.status(of: error))
            }
        }
    }

    // MARK: GetInfo

    private func getInfo(_ caller: Caller, _ reply: Reply) {
        submit(.securityKeyRetries, caller) { result in
            let hasPin = if case .success = result { true } else { false }
            var options = CBORMap()
            options.set("rk", .bool(true))
            options.set("up", .bool(true))
            options.set("clientPin", .bool(hasPin))
            options.set("pinUvAuthToken", .bool(true))
            options.set("credMgmt", .bool(true))
            var info = CBORMap()
            info.set(1, .array([.text("FIDO_2_0"), .text("FIDO_2_1")]))
            info.set(3, .bytes(Passkey.aaguid))
            info.set(4, .map(options))
            info.set(5, .int(CTAPHID.maximumMessageSize))
            info.set(6, .array([.int(2), .int(1)]))
            info.set(10, .array(KeyAlgorithm.passkeyAlgorithms.map { algorithm in
                .map(CBORMap([(.text("alg"), .int(algorithm.coseAlgorithm)), (.text("type"), .text("public-key"))]))
            }))
            reply(.ok, .map(info))
        }
    }
}

extension KeyAlgorithm {
    /// What a passkey may be, in the order GetInfo offers them: ES256, then EdDSA.
    static let passkeyAlgorithms: [KeyAlgorithm] = [.p256, .ed25519]
}
