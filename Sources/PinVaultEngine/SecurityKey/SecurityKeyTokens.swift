import PinVaultCrypto
import PinVaultSystem

/// The engine's half of CTAP's pinUvAuthTokens: an unlock session of a uid's security
/// key (its `webauthn` credential), bound to one CTAPHID channel. It holds the
/// authenticator's opened seed — what each passkey's key is derived from — in secret
/// memory whose pages are closed between uses, and what the token may do: its
/// permissions (mc, ga, cm) and, once given or first used, its relying party. A token
/// ends when its channel closes, when a new token is made on the channel, when its
/// credential changes (`end(keyIds:)`), and `lifetime` after it was made; each use
/// checks the deadline. Its first use is CTAP 2.1's "user present": the PIN just typed.
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

    init(now: @escaping @Sendable () -> UInt64) throws(SystemError) {
        lock = try CheckedLock()
        self.now = now
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
            guard now() < token.deadline else {
                tokens[channel] = nil
                throw .noToken
            }
            guard token.permissions.contains(permission) else { throw .notPermitted }
            if let rpIdHash {
                if let bound = token.rpIdHash, bound != rpIdHash { throw .notPermitted }
                token.rpIdHash = rpIdHash
            }
            return token
        }
        return try lock.withLock({ () throws -> T in
            let present = token.userPresent
            token.userPresent = false
            try token.seed.protect(.readOnly)
            defer { try? token.seed.protect(.noAccess) }
            return try body(token.seed, token.keyId, present)
        }, lockFailed: { _ in Refusal.noToken })
    }

    /// Ends the channel's token.
    func end(channel: UInt64) {
        _ = try? locked { tokens[channel] = nil }
    }

    /// Ends every token of these credentials (changed or deleted).
    func end(keyIds: [KeyID]) {
        _ = try? locked { tokens = tokens.filter { !keyIds.contains($0.value.keyId) } }
    }

    /// Ends every token (Reset, the daemon's exit).
    func endAll() {
        _ = try? locked { tokens = [:] }
    }

    var count: Int { (try? locked { tokens.count }) ?? 0 }
}
