import PinVaultCrypto
import PinVaultSystem

/// The engine's half of CTAP's pinUvAuthTokens: an unlock session of a uid's security
/// key (its `webauthn` credential), bound to one CTAPHID channel. It holds the
/// authenticator's opened seed — what each passkey's key is derived from — in secret
/// memory whose pages are closed between uses, and what the token may do: its
/// permissions (mc, ga, cm) and, once given or first used, its relying party. A token
/// ends when its channel closes, when a new token is made on the channel, when its
/// credential changes (`end(keyIds:)`), and `lifetime` after it was made: each use
/// checks the deadline, and the engine's sweeper ends an unused token at it
/// (`endExpired`), so that its seed is zeroed then, not when the channel closes. Each
/// end is told to the passkey door (`onEnd`), which drops its own half of the token.
/// Its first use is CTAP 2.1's "user present": the PIN just typed.
final class SecurityKeyTokens: @unchecked Sendable {
    /// CTAP 2.1 §6.5.2.1 lets a token live at most ten minutes.
    static let lifetimeNanoseconds: UInt64 = 600 * 1_000_000_000

    struct Permissions: OptionSet, Sendable, Hashable {
        let rawValue: UInt8
        init(rawValue: UInt8) { self.rawValue = rawValue }
        static let makeCredential = Permissions(rawValue: 0x01)
        static let getAssertion = Permissions(rawValue: 0x02)
        static let credentialManagement = Permissions(rawValue: 0x04)
    }

    final class Token {
        let owner: UInt32
        let keyId: KeyID
        let seed: SecretBytes
        let permissions: Permissions
        var rpIdHash: [UInt8]?
        let deadline: UInt64
        var userPresent = true

        init(owner: UInt32, keyId: KeyID, seed: SecretBytes, permissions: Permissions, rpIdHash: [UInt8]?, deadline: UInt64) {
            self.owner = owner
            self.keyId = keyId
            self.seed = seed
            self.permissions = permissions
            self.rpIdHash = rpIdHash
            self.deadline = deadline
        }
    }

    /// What a use of a token found instead of a token that serves it.
    enum Refusal: Error, Equatable {
        /// No token on the channel (never made, ended, expired, another uid's).
        case noToken
        /// The token lacks the permission, or names another relying party.
        case notPermitted
    }

    private let lock: CheckedLock
    private let now: @Sendable () -> UInt64
    private var tokens: [UInt64: Token] = [:]
    /// Called, outside the lock, after a token was made: the sweeper learns its deadline.
    private let opened: @Sendable () -> Void
    /// Called, outside the lock, with the channels whose tokens ended (`onEnd`).
    private var ended: (@Sendable ([UInt64]) -> Void)?

    init(now: @escaping @Sendable () -> UInt64, opened: @escaping @Sendable () -> Void = {}) throws(SystemError) {
        lock = try CheckedLock()
        self.now = now
        self.opened = opened
    }

    /// Whom to tell of the channels whose tokens ended, for whatever reason (the passkey
    /// door zeroes its half of each). Called on the thread that ended them, never with a
    /// lock of this table held.
    func onEnd(_ observer: @escaping @Sendable ([UInt64]) -> Void) {
        _ = try? locked { ended = observer }
    }

    /// Removes the tokens `shouldEnd` picks, then tells the observer; the tokens (their
    /// seeds zeroed as the last reference goes) are dropped on return.
    private func end(where shouldEnd: (UInt64, Token) -> Bool) {
        let (channels, observer) = (try? locked { () throws(Refusal) -> ([UInt64], (@Sendable ([UInt64]) -> Void)?) in
            let channels = tokens.filter { shouldEnd($0.key, $0.value) }.map(\.key)
            for channel in channels { tokens[channel] = nil }
            return (channels, ended)
        }) ?? ([], nil)
        if !channels.isEmpty { observer?(channels) }
    }

    private func locked<T>(_ body: () throws(Refusal) -> T) throws(Refusal) -> T {
        try lock.withLock(body) { _ in Refusal.noToken }
    }

    /// Makes the channel's token, in place of any it had; its seed's pages closed.
    func open(channel: UInt64, owner: UInt32, keyId: KeyID, seed: SecretBytes, permissions: Permissions, rpIdHash: [UInt8]?) {
        try? seed.protect(.noAccess)
        let token = Token(
            owner: owner, keyId: keyId, seed: seed, permissions: permissions, rpIdHash: rpIdHash,
            deadline: now() &+ Self.lifetimeNanoseconds)
        _ = try? locked { tokens[channel] = token }
        opened()
    }

    /// Runs `body` with the seed of the channel's token, if it belongs to `owner`, is
    /// alive, holds `permission` and serves `rpIdHash` (a token made without a relying
    /// party takes the first it is used for). `body` learns whether this is the token's
    /// first use (user presence) and the authenticator's key id.
    func use<T>(
        channel: UInt64, owner: UInt32, permission: Permissions, rpIdHash: [UInt8]?,
        _ body: (SecretBytes, KeyID, _ userPresent: Bool) throws -> T
    ) throws -> T {
        let token: Token = try locked { () throws(Refusal) -> Token in
            guard let token = tokens[channel], token.owner == owner else { throw .noToken }
            guard now() < token.deadline else { throw .noToken }  // the sweeper's to end
            guard token.permissions.contains(permission) else { throw .notPermitted }
            if let rpIdHash {
                if let bound = token.rpIdHash, bound != rpIdHash { throw .notPermitted }
                token.rpIdHash = rpIdHash
            }
            return token
        }
        return try lock.withLock({ () throws -> T in
            // Ended between the two holds (a PIN change, Reset, the sweeper): its seed
            // serves nothing more.
            guard tokens[channel] === token, now() < token.deadline else { throw Refusal.noToken }
            let present = token.userPresent
            token.userPresent = false
            try token.seed.protect(.readOnly)
            defer { try? token.seed.protect(.noAccess) }
            return try body(token.seed, token.keyId, present)
        }, lockFailed: { _ in Refusal.noToken })
    }

    /// Ends the channel's token.
    func end(channel: UInt64) {
        end { key, _ in key == channel }
    }

    /// Ends every token of these credentials (changed or deleted).
    func end(keyIds: [KeyID]) {
        end { _, token in keyIds.contains(token.keyId) }
    }

    /// Ends every token (Reset, the daemon's exit).
    func endAll() {
        end { _, _ in true }
    }

    /// Ends every token whose deadline has passed (the sweeper's work).
    func endExpired() {
        let time = now()
        end { _, token in token.deadline <= time }
    }

    /// The earliest deadline of a token; nil when there is none.
    func nextDeadline() -> UInt64? {
        (try? locked { tokens.values.lazy.map(\.deadline).min() }) ?? nil
    }

    var count: Int { (try? locked { tokens.count }) ?? 0 }

    /// Whether the channel holds a token now (one opened after an end already told of).
    func holds(channel: UInt64) -> Bool {
        (try? locked { tokens[channel] != nil }) ?? false
    }

    /// The live tokens' seeds (tests: each must be released, and so zeroed, at its end).
    var seeds: [SecretBytes] { (try? locked { tokens.values.map(\.seed) }) ?? [] }
}
