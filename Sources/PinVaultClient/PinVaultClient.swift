import PinVaultCrypto
import FoundationEssentials
import PinVaultProtocol

/// One connection to pinvaultd, speaking `io.pinvault.Vault` over its Unix socket.
///
/// Calls on one client are answered in order, one at a time (FIFO); use several clients
/// for parallelism. Blocking socket I/O runs on the client's own serial DispatchQueue,
/// never on the Swift concurrency cooperative pool, so a 100 ms Argon2id never blocks a
/// caller's executor, and no event loop is forced on the caller.
///
/// PINs are `PIN` objects, consumed by the call that carries them: their bytes go from
/// secret memory straight into a call buffer that is zeroed once sent, and the `PIN` is
/// wiped as soon as that buffer is written. Replies are read into secret memory too, and
/// zeroed once parsed.
///
/// Cancelling the calling Task affects that call only. A call still waiting behind
/// another one on this client is never sent and throws `.cancelled`; the connection goes
/// on. The call in flight is ended by shutting the socket down (the daemon then drops a
/// queued PIN check without counting it) and throws `.cancelled`, unless the daemon's
/// answer had already arrived: that answer is returned or thrown (`.wrongPin`,
/// `.credentialBlocked`…), so that nothing the daemon did is hidden. Either way the
/// connection is then closed, and every later call throws `.connectionLost`. A timeout,
/// a lost connection or a malformed reply close the connection the same way: make a new
/// client to go on. An error the daemon answers (`.wrongPin`, `.noSuchCredential`, …)
/// leaves the connection open.
public final class PinVaultClient: Sendable {
    /// Where pinvaultd listens by default: `/run/pinvault/io.pinvault.Vault`.
    public static let defaultSocketPath = "/run/pinvault/io.pinvault.Vault"

    /// The connection and its I/O queue.
    let connection: VarlinkConnection

    /// Connects at once (throws `.daemonUnavailable`). `timeout` bounds each call's wait
    /// for its reply (default 60 s: a queued KDF can take a while).
    public init(socketPath: String = PinVaultClient.defaultSocketPath, timeout: Duration = .seconds(60)) throws(PinVaultError) {
        connection = try VarlinkConnection(socketPath: socketPath, timeout: timeout)
    }

    deinit {
        connection.close()
    }

    /// Closes the connection. A call in flight fails with `.connectionLost`, and so does
    /// every later call. Idempotent.
    public func close() {
        connection.close()
    }

    /// The PIN policy and lockout rules in force.
    public func getPolicy() async throws(PinVaultError) -> PinPolicy {
        try await call(.getPolicy) { _ in } decode: { reply throws(ParameterError) in
            try PinPolicy(from: ParameterError.present("policy", reply.object("policy", required: true)))
        }
    }

    /// Checks a candidate PIN against the policy, without storing or counting anything.
    /// An empty PIN is sent too: the policy answers it with the violation `empty`.
    /// Consumes `pin`.
    public func checkPin(_ pin: PIN) async throws(PinVaultError) -> PinCheck {
        let secrets = try PIN.take([(pin, "pin")], allowingEmpty: true)
        return try await call(.checkPin, wiping: secrets) { parameters in
            parameters.secretField("pin", secrets[0], encoding: .raw)
        } decode: { reply throws(ParameterError) in
            try PinCheck.decode(reply)
        }
    }

    /// Creates a credential for `user`, owned by the caller's uid: a fresh seed sealed
    /// under `pin` (which must meet the policy), its key of `algorithm`. Consumes `pin`.
    public func register(
        user: String, pin: PIN, label: String? = nil, purpose: Credential.Purpose = .authenticate,
        algorithm: Credential.Algorithm = .default
    ) async throws(PinVaultError) -> Credential {
        let secrets = try PIN.take([(pin, "pin")])
        try ClientLimits.checkUser(user)
        try ClientLimits.checkLabel(label)
        // Only credentials made before purposes existed are legacy: the daemon would refuse it.
        guard Credential.Purpose.registrable.contains(purpose) else { throw .invalidParameter("purpose") }
        return try await call(.register, wiping: secrets) { parameters in
            parameters.field("user", user)
            parameters.secretField("pin", secrets[0], encoding: .raw)
            parameters.optionalField("label", label)
            parameters.field("purpose", purpose.rawValue)
            // Named only when not the default, so that an Ed25519 registration still
            // reaches a daemon of an earlier release.
            if algorithm != .default { parameters.field("algorithm", algorithm.rawValue) }
        } decode: { reply throws(ParameterError) in
            try Credential.decode("credential", in: reply)
        }
    }

    /// The caller's credentials, of `user` or all. Admins may pass `ownerUid` to list
    /// another uid's.
    public func list(
        user: String? = nil, ownerUid: UInt32? = nil, purpose: Credential.Purpose? = nil
    ) async throws(PinVaultError) -> [Credential] {
        if let user { try ClientLimits.checkUser(user) }
        return try await call(.list, Self.listParameters(user, ownerUid, purpose), decode: Self.credentials)
    }

    /// Signs exactly `challenge` (1-1024 bytes) with the credential's key once
    /// `pin` is right. `keyId` may be omitted when `user` holds one credential. Consumes
    /// `pin`; a wrong one is counted (`.wrongPin`, then `.lockedOut`, `.credentialBlocked`
    /// or `.credentialWiped`). Admins may pass `ownerUid` to use another uid's credential
    /// (with that credential's PIN).
    public func authenticate(
        user: String, keyId: String? = nil, pin: PIN, challenge: [UInt8], ownerUid: UInt32? = nil
    ) async throws(PinVaultError) -> Authentication {
        let secrets = try PIN.take([(pin, "pin")])
        try ClientLimits.checkUser(user)
        try ClientLimits.checkKeyId(keyId)
        try ClientLimits.checkChallenge(challenge)
        return try await call(.authenticate, wiping: secrets) { parameters in
            parameters.field("user", user)
            parameters.optionalField("keyId", keyId)
            parameters.secretField("pin", secrets[0], encoding: .raw)
            parameters.field("challenge", Base64.encodedString(challenge))
            parameters.optionalField("ownerUid", ownerUid.map(Int64.init))
        } decode: { reply throws(ParameterError) in
            try Authentication.decode(reply)
        }
    }

    /// Replaces the PIN after checking `currentPin` (counted when wrong); `newPin` must
    /// meet the policy and differ from the current one. Consumes both PINs.
    public func changePin(user: String, keyId: String? = nil, currentPin: PIN, newPin: PIN) async throws(PinVaultError) -> Credential {
        let secrets = try PIN.take([(currentPin, "currentPin"), (newPin, "newPin")])
        try ClientLimits.checkUser(user)
        try ClientLimits.checkKeyId(keyId)
        return try await call(.changePin, wiping: secrets) { parameters in
            parameters.field("user", user)
            parameters.optionalField("keyId", keyId)
            parameters.secretField("currentPin", secrets[0], encoding: .raw)
            parameters.secretField("newPin", secrets[1], encoding: .raw)
        } decode: { reply throws(ParameterError) in
            try Credential.decode("credential", in: reply)
        }
    }

    /// First phase of deleting a credential: checks `pin` (admins may pass nil) and
    /// returns the one-time token for `commitUnregister` or `abortUnregister`. The
    /// credential is unusable until then, or until `expiresAt`. Consumes `pin`.
    public func beginUnregister(user: String, keyId: String? = nil, pin: PIN?) async throws(PinVaultError) -> PendingUnregistration {
        let secrets = try PIN.take(pin.map { [($0, "pin")] } ?? [])
        try ClientLimits.checkUser(user)
        try ClientLimits.checkKeyId(keyId)
        return try await call(.beginUnregister, wiping: secrets) { parameters in
            parameters.field("user", user)
            parameters.optionalField("keyId", keyId)
            if let secret = secrets.first { parameters.secretField("pin", secret, encoding: .raw) }
        } decode: { reply throws(ParameterError) in
            try PendingUnregistration.decode(reply)
        }
    }

    /// Second phase: deletes the credential of a pending unregistration. The token is
    /// not wiped (wipe it once done with it).
    public func commitUnregister(keyId: String, token: UnregistrationToken) async throws(PinVaultError) {
        try await finishUnregistration(.commitUnregister, keyId: keyId, token: token)
    }

    /// Cancels a pending unregistration; the credential is active again. The token is
    /// not wiped (wipe it once done with it).
    public func abortUnregister(keyId: String, token: UnregistrationToken) async throws(PinVaultError) {
        try await finishUnregistration(.abortUnregister, keyId: keyId, token: token)
    }

    /// Deletes every credential of `user` (for the caller's uid, or `ownerUid` for an
    /// admin) in one transaction, after checking the PIN of `keyId` or of the only
    /// credential. Admins may pass a nil `pin`. Consumes `pin`.
    public func wipe(user: String, keyId: String? = nil, pin: PIN?, ownerUid: UInt32? = nil) async throws(PinVaultError) -> WipeResult {
        let secrets = try PIN.take(pin.map { [($0, "pin")] } ?? [])
        try ClientLimits.checkUser(user)
        try ClientLimits.checkKeyId(keyId)
        return try await call(.wipe, wiping: secrets) { parameters in
            parameters.field("user", user)
            parameters.optionalField("keyId", keyId)
            if let secret = secrets.first { parameters.secretField("pin", secret, encoding: .raw) }
            parameters.optionalField("ownerUid", ownerUid.map(Int64.init))
        } decode: { reply throws(ParameterError) in
            try WipeResult.decode(reply)
        }
    }

    /// Admins only: clears the failure count of a blocked or throttled credential.
    public func unblock(ownerUid: UInt32, user: String, keyId: String) async throws(PinVaultError) -> Credential {
        try ClientLimits.checkUser(user)
        try ClientLimits.checkKeyId(keyId)
        return try await call(.unblock) { parameters in
            parameters.field("ownerUid", Int64(ownerUid))
            parameters.field("user", user)
            parameters.field("keyId", keyId)
        } decode: { reply throws(ParameterError) in
            try Credential.decode("credential", in: reply)
        }
    }

    /// Admins only: deletes every credential of every uid and returns how many. Sends the
    /// confirmation `"RESET"` itself: calling this method is the confirmation.
    public func resetEverything() async throws(PinVaultError) -> Int {
        try await call(.reset) { parameters in
            parameters.field("confirm", ProtocolLimits.resetConfirmation)
        } decode: { reply throws(ParameterError) in
            Int(try reply.int("deletedCount", required: true, range: 0...Int64.max) ?? 0)
        }
    }

    /// Admins only: the running daemon's counters.
    public func stats() async throws(PinVaultError) -> Stats {
        try await call(.getStats) { _ in } decode: { reply throws(ParameterError) in
            try Stats(from: ParameterError.present("counters", reply.object("counters", required: true)))
        }
    }
}
