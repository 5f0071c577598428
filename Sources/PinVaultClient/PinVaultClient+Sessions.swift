import FoundationEssentials
import PinVaultCrypto
import PinVaultProtocol

/// Unlock sessions: a credential's key kept open for a while, so that signatures
/// need no PIN (and the daemon's ssh-agent socket can use it).
extension PinVaultClient {
    /// Checks `pin` as `authenticate` does (a wrong one is counted) and keeps the
    /// credential unlocked for the caller's uid for `ttl` (whole seconds, at least 1;
    /// the daemon caps it at its `sessions.max_ttl_seconds`). With
    /// `bindToConnection`, the session also ends when this client's connection
    /// closes: keep the client open for as long as it should last. `confirmEachUse`:
    /// every signature needs the owner's yes in the per-user agent's prompt;
    /// `allowForwarding`: an agent may sign for a connection ssh forwarded. Consumes `pin`.
    public func unlock(
        user: String, keyId: String? = nil, pin: PIN, ttl: Duration, bindToConnection: Bool = false,
        confirmEachUse: Bool = false, allowForwarding: Bool = false
    ) async throws(PinVaultError) -> UnlockSession {
        let secrets = try PIN.take([(pin, "pin")])
        try ClientLimits.checkUser(user)
        try ClientLimits.checkKeyId(keyId)
        let seconds = try ClientLimits.ttlSeconds(ttl)
        return try await call(
            .unlock, wiping: secrets,
            Self.unlockParameters(user, keyId, secrets[0], seconds, bindToConnection, confirmEachUse, allowForwarding),
            decode: Self.unlockSession
        )
    }

    /// Ends the caller's session on `keyId`, or all of the caller's sessions; returns
    /// the key ids that were unlocked.
    @discardableResult
    public func lock(keyId: String? = nil) async throws(PinVaultError) -> [String] {
        try ClientLimits.checkKeyId(keyId)
        return try await call(.lock, Self.lockParameters(keyId), decode: Self.lockedKeyIds)
    }

    /// Signs exactly `challenge` (1-16384 bytes) with a credential the caller's uid has
    /// unlocked: no PIN. Throws `.notUnlocked` otherwise.
    public func sign(keyId: String, challenge: [UInt8]) async throws(PinVaultError) -> [UInt8] {
        try ClientLimits.checkKeyId(keyId)
        try ClientLimits.checkChallenge(challenge, within: ProtocolLimits.signMessageBytes)
        return try await call(.sign) { parameters in
            parameters.field("keyId", keyId)
            parameters.field("challenge", Base64.encodedString(challenge))
        } decode: { reply throws(ParameterError) in
            return try reply.base64("signature", required: true, decodedBytes: ProtocolLimits.signatureBytes) ?? []
        }
    }

    /// Signs a 32-byte SHA-256 `digest` (ECDSA over a hash, as `ssh -I` asks a PKCS#11
    /// token) with the caller's unlocked `ssh` credential `keyId`, a P-256 one: no PIN.
    /// Throws `.notUnlocked`, `.wrongPurpose` for a credential of another purpose, and
    /// `.invalidParameter("keyId")` for a key that signs no digest (Ed25519).
    public func signDigest(keyId: String, digest: [UInt8]) async throws(PinVaultError) -> [UInt8] {
        try ClientLimits.checkKeyId(keyId)
        guard ProtocolLimits.digestBytes.contains(digest.count) else { throw .invalidParameter("digest") }
        return try await call(.signDigest) { parameters in
            parameters.field("keyId", keyId)
            parameters.field("digest", Base64.encodedString(digest))
        } decode: { reply throws(ParameterError) in
            try reply.base64("signature", required: true, decodedBytes: ProtocolLimits.signatureBytes) ?? []
        }
    }

    /// For an ssh-agent of the caller's (the per-user agent): signs `data`, what an ssh
    /// client asked it to sign, with the caller's unlocked `ssh` credential `keyId`.
    /// `forwarded`: the agent's connection was one ssh forwarded; `confirmed`: the
    /// owner said yes to this signature; `rules`: the agent's own rules for the key
    /// (its `confirm` and `allow_forwarding`), which the daemon applies beside the
    /// session's. Throws `.notUnlocked`, `.confirmationRequired`,
    /// `.forwardingNotAllowed` (before `.notUnlocked`: a locked key the rules refuse is
    /// not worth a PIN), `.wrongPurpose`, or `.invalidParameter("challenge")` for data
    /// that is not SSH data for that key.
    public func agentSign(
        keyId: String, data: [UInt8], forwarded: Bool = false, confirmed: Bool = false, rules: AgentKeyRules = .init()
    ) async throws(PinVaultError) -> [UInt8] {
        try Self.checkAgentSign(keyId: keyId, data: data)
        return try await call(.agentSign, Self.agentSignParameters(keyId, data, forwarded, confirmed, rules), decode: Self.signature)
    }

    /// `agentSign` for an agent's event loop, which must not wait: the signature or the
    /// error goes to `completion`, on the connection's queue.
    public func agentSign(
        keyId: String, data: [UInt8], forwarded: Bool = false, confirmed: Bool = false, rules: AgentKeyRules = .init(),
        completion: @escaping @Sendable (Result<[UInt8], PinVaultError>) -> Void
    ) {
        do throws(PinVaultError) {
            try Self.checkAgentSign(keyId: keyId, data: data)
        } catch {
            return completion(.failure(error))
        }
        call(.agentSign, Self.agentSignParameters(keyId, data, forwarded, confirmed, rules), decode: Self.signature, completion: completion)
    }

    static func checkAgentSign(keyId: String, data: [UInt8]) throws(PinVaultError) {
        try ClientLimits.checkKeyId(keyId)
        guard ProtocolLimits.agentDataBytes.contains(data.count) else { throw .invalidParameter("challenge") }
    }

    static func agentSignParameters(
        _ keyId: String, _ data: [UInt8], _ forwarded: Bool, _ confirmed: Bool, _ rules: AgentKeyRules
    ) -> (inout JSONObjectWriter) -> Void {
        { parameters in
            parameters.field("keyId", keyId)
            parameters.base64Field("challenge", data)
            if forwarded { parameters.field("forwarded", true) }
            if confirmed { parameters.field("confirmed", true) }
            if rules.confirmEachUse { parameters.field("confirmEachUse", true) }
            if rules.allowForwarding { parameters.field("allowForwarding", true) }
        }
    }

    @Sendable static func signature(_ reply: ParameterDecoder) throws(ParameterError) -> [UInt8] {
        try reply.base64("signature", required: true, decodedBytes: ProtocolLimits.signatureBytes) ?? []
    }

    /// Attaches an OpenSSH user certificate (its blob) of the key of the caller's `ssh`
    /// credential `keyId`: the agents offer it beside the key. Returns the credential.
    public func addSSHCertificate(keyId: String, certificate: [UInt8]) async throws(PinVaultError) -> Credential {
        try await changeCertificates(.addSSHCertificate, keyId: keyId, certificate: certificate)
    }

    /// Detaches a certificate from the caller's `ssh` credential `keyId`.
    public func removeSSHCertificate(keyId: String, certificate: [UInt8]) async throws(PinVaultError) -> Credential {
        try await changeCertificates(.removeSSHCertificate, keyId: keyId, certificate: certificate)
    }

    private func changeCertificates(_ method: VaultMethod, keyId: String, certificate: [UInt8]) async throws(PinVaultError) -> Credential {
        try ClientLimits.checkKeyId(keyId)
        guard ProtocolLimits.certificateBytes.contains(certificate.count) else { throw .invalidParameter("certificate") }
        return try await call(method) { parameters in
            parameters.field("keyId", keyId)
            parameters.field("certificate", Base64.encodedString(certificate))
        } decode: { reply throws(ParameterError) in
            try Credential.decode("credential", in: reply)
        }
    }
}

/// An ssh-agent's own rules for one key (the per-user agent's agent.toml), sent with each
/// `agentSign`: the daemon applies them beside the key's session, whoever unlocked it.
public struct AgentKeyRules: Sendable, Equatable {
    /// Ask the owner before each signature.
    public var confirmEachUse: Bool
    /// Sign for a connection ssh forwarded (the session must allow it too).
    public var allowForwarding: Bool

    public init(confirmEachUse: Bool = false, allowForwarding: Bool = false) {
        self.confirmEachUse = confirmEachUse
        self.allowForwarding = allowForwarding
    }
}
